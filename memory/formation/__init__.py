"""Memory formation after a reply: the plan (patterns first, a model's extraction grounded), the
durable queue, and the graph writes."""
