"""What the tests start and drive: the command line, a real server on a free port, child
processes, the load balancer, floods, locks held elsewhere and a tiny full disk."""
