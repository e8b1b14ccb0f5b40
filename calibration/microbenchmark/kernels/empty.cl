// empty: a kernel that does nothing, to measure launch overhead (class L; reference §2.7 "launch_empty").
__kernel void empty(void)
{
}
