"""The edges of Reverie: settings, LLM backends, the agent, the Chainlit UI, the CLI, the scheduler."""
