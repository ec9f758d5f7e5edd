"""Accounts: people who can log in, with bcrypt-hashed passwords."""

from __future__ import annotations

import re

import bcrypt
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from memory.models import AccountRow, utcnow

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
# Checked against for unknown names, so a login takes as long whether or not the name exists.
_DUMMY_HASH = bcrypt.hashpw(b"not-a-password", bcrypt.gensalt())


class AccountError(ValueError):
    """An account cannot be created or changed as asked; the message says why."""


class AccountStore:
    """Create accounts and check passwords."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def create(self, name: str, password: str) -> AccountRow:
        """Create an account.

        Raises:
            AccountError: bad name, short password, or the name is taken.
        """
        if not _NAME.match(name):
            raise AccountError("a user name is 1-64 letters, digits, '.', '_' or '-'")
        if len(password) < 8:
            raise AccountError("a password needs at least 8 characters")
        digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt()).decode()
        row = AccountRow.model_validate({"name": name, "password_hash": digest, "created_at": utcnow()})
        try:
            with Session(self._engine) as session:
                session.add(row)
                session.commit()
                session.refresh(row)
        except IntegrityError as exc:
            raise AccountError(f"user {name!r} already exists") from exc
        return row

    def set_password(self, name: str, password: str) -> None:
        """Replace an account's password."""
        if len(password) < 8:
            raise AccountError("a password needs at least 8 characters")
        with Session(self._engine) as session:
            row = session.exec(select(AccountRow).where(AccountRow.name == name)).first()
            if row is None:
                raise AccountError(f"no user {name!r}")
            row.password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt()).decode()
            session.add(row)
            session.commit()

    def authenticate(self, name: str, password: str) -> AccountRow | None:
        """The account if `password` is right, else None (same answer for unknown names)."""
        row = self.get(name)
        if row is None:
            bcrypt.checkpw(password.encode(), _DUMMY_HASH)
            return None
        return row if bcrypt.checkpw(password.encode(), row.password_hash.encode()) else None

    def get(self, name: str) -> AccountRow | None:
        """The account called `name`, if any."""
        with Session(self._engine) as session:
            return session.exec(select(AccountRow).where(AccountRow.name == name)).first()

    def list(self) -> list[AccountRow]:
        """All accounts, oldest first."""
        with Session(self._engine) as session:
            return list(session.exec(select(AccountRow).order_by(col(AccountRow.id))))

    def resolve(self, name: str | None) -> int:
        """The id of user `name`, or of the only user when no name is given (the CLI's --user).

        Raises:
            LookupError: no such user, no users yet, or several users and no name (the message says which).
        """
        if name is not None:
            account = self.get(name)
            if account is None or account.id is None:
                raise LookupError(f"no user named {name!r} (see `reverie users list`)")
            return account.id
        accounts = self.list()
        if not accounts:
            raise LookupError("there are no users yet: run `reverie run` once, or `reverie users add NAME`")
        if len(accounts) > 1 or accounts[0].id is None:
            raise LookupError(f"say whose memory with --user (users: {', '.join(a.name for a in accounts)})")
        return accounts[0].id

    def count(self) -> int:
        """How many accounts exist."""
        with Session(self._engine) as session:
            return session.exec(select(func.count()).select_from(AccountRow)).one()
