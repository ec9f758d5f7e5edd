"""Entities and relations: SQLite records (the system of record), their Kuzu projection, and the Cypher queries."""
