"""What the agent may ask for, declared as data: resource dimensions, limits, clamping and reports."""
