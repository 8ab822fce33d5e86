"""The same jobs on a Ray cluster (optional): the executor the service submits to, the
connection to a cluster, and the node side, one warm worker pool per node."""
