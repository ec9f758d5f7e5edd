"""The nightly dream: usage analysis, measured simulation of proposed limits, proposals and their
approval, memory consolidation, and proactive reminders. Imports capabilities/ and memory/, never app/."""
