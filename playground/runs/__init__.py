"""The run path: how a Job travels from a front-end to a sandboxed worker and back. One chain
of executors around submit(job) -> Report: the fair queue, the restarting executor, the
default-version guard, and the local pool (sandbox/) or Ray (ray/)."""
