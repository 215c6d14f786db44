#!/usr/bin/env python3
"""The migration linter: what a migration may do to a table the running release uses.

Reads each migration with PostgreSQL's own parser (pglast, from .venv; its 5.x line is the
PostgreSQL 15 grammar) and refuses a statement that would hold a lock the live traffic queues
behind, rewrite or scan a whole table under that lock, or take away what the previous release
still reads. Comments are read from the parser's own token stream, never by matching the SQL.

  migration-lint.py                the migrations after the last release (sql/migrations.released)
  migration-lint.py --list         the files that run would read, one a line
  migration-lint.py FILE...        these files (a file in sql/migrations is read against the ones before it)
  migration-lint.py --self-test    every fixture in scripts/lib/migration-lint/: each bad/RULE*.sql
                                   refused by exactly RULE, each good/*.sql passed, each rule has both

Findings, one a line: `FILE:LINE: RULE: what, and what to do instead`; exit 1 when there is one.
"Existing table": one the file did not create before the statement (CREATE TABLE, CREATE TABLE
AS); an old column's type is what the earlier migrations, read in order, made it.

Opt-outs, one comment before the statement (or inside it), a reason required:
    -- lint: allow RULE[, RULE...] (why this one is safe)
File marker, on the first line: `-- migrate: no-transaction` (the migrator runs that file
outside a transaction; CONCURRENTLY needs it). The rules are in docs/contributing.md.
"""
import pathlib
import re
import sys

from pglast import enums, parse_sql
from pglast.parser import ParseError, scan

ROOT = pathlib.Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "sql" / "migrations"
RELEASED = ROOT / "sql" / "migrations.released"
FIXTURES = ROOT / "scripts" / "lib" / "migration-lint"

RULES = {
    "index-concurrently": "an index on an existing table is built without CONCURRENTLY",
    "no-transaction": "CONCURRENTLY in a file without the first line `-- migrate: no-transaction`",
    "not-valid": "a CHECK or FOREIGN KEY added to an existing table (or domain) without NOT VALID",
    "validate-same-file": "VALIDATE CONSTRAINT in the file that added the constraint NOT VALID",
    "using-index": "a UNIQUE, PRIMARY KEY or EXCLUDE constraint on an existing table not built USING INDEX",
    "set-not-null": "SET NOT NULL on an existing table's column (a scan under ACCESS EXCLUSIVE)",
    "type-change": "a column type change that rewrites an existing table",
    "volatile-default": "a new column of an existing table whose value rewrites the table",
    "not-null-no-default": "a NOT NULL column added to an existing table without a default",
    "rename": "a rename of a table, column, view or type the previous release reads",
    "drop": "a drop of a table, column, view or type the previous release reads",
    "lock-timeout": "a lock-taking statement on an existing table before `set local lock_timeout`",
}
# Findings about the markers themselves; no opt-out silences them.
MARKER_RULES = {"opt-out", "parse"}

NO_TRANSACTION = "-- migrate: no-transaction"
OPT_OUT = re.compile(r"lint:\s*allow\s+(?P<rules>[a-z-]+(?:\s*,\s*[a-z-]+)*)\s*\((?P<reason>.*)\)\s*$", re.S)

# Functions a default may call without making the column's value differ row by row (stable or
# immutable: evaluated once when the column is added, no rewrite since PostgreSQL 11). Any other
# call, a sequence's nextval or an unknown function alike, counts as volatile.
NON_VOLATILE = {
    "now", "transaction_timestamp", "statement_timestamp", "make_interval", "make_date",
    "make_time", "make_timestamp", "make_timestamptz", "date_trunc", "to_timestamp", "to_date",
    "lower", "upper", "btrim", "concat", "jsonb_build_object", "jsonb_build_array",
    "json_build_object", "json_build_array", "array_fill", "int4range", "int8range", "tstzrange",
    "daterange", "numrange",
}
VARCHAR = {"varchar", "bpchar_varchar"}
TEXTUAL = {"text", "varchar"}
# Objects whose rename or drop the previous release can notice (a table, a view, a type ...).
READ_OBJECTS = {
    enums.ObjectType.OBJECT_TABLE, enums.ObjectType.OBJECT_VIEW, enums.ObjectType.OBJECT_MATVIEW,
    enums.ObjectType.OBJECT_FOREIGN_TABLE, enums.ObjectType.OBJECT_SEQUENCE, enums.ObjectType.OBJECT_TYPE,
    enums.ObjectType.OBJECT_DOMAIN, enums.ObjectType.OBJECT_SCHEMA, enums.ObjectType.OBJECT_COLUMN,
    enums.ObjectType.OBJECT_ATTRIBUTE,
}
# Drops that lock a table: the relation kinds, and what hangs off a table (its triggers, rules, policies).
LOCKING_DROPS = READ_OBJECTS - {enums.ObjectType.OBJECT_TYPE, enums.ObjectType.OBJECT_DOMAIN,
                                enums.ObjectType.OBJECT_SCHEMA} | {
    enums.ObjectType.OBJECT_INDEX, enums.ObjectType.OBJECT_TRIGGER, enums.ObjectType.OBJECT_RULE,
    enums.ObjectType.OBJECT_POLICY,
}
AT = enums.AlterTableType
CT = enums.ConstrType


def released() -> int:
    """The last released migration's number: sql/migrations.released, its one number."""
    text = RELEASED.read_text(encoding="utf-8").strip()
    if not text.isdigit():
        sys.exit(f"{RELEASED.relative_to(ROOT)}: expected one number, the last released migration's, found {text!r}")
    return int(text)


def number(path: pathlib.Path) -> int | None:
    head = path.name.split("_", 1)[0]
    return int(head) if head.isdigit() else None


def all_migrations() -> list[pathlib.Path]:
    return sorted((p for p in MIGRATIONS.glob("*.sql") if number(p) is not None), key=number)


def names(nodes) -> list[str]:
    return [n.sval for n in nodes or () if hasattr(n, "sval")]


def qualified(range_var) -> str:
    return f"{range_var.schemaname}.{range_var.relname}" if range_var.schemaname else range_var.relname


def type_of(type_name) -> tuple[str, tuple]:
    """A type as (its last name, its integer modifiers): varchar(20) is ('varchar', (20,))."""
    base = names(type_name.names)[-1]
    mods = tuple(getattr(getattr(m, "val", None), "ival", None) for m in type_name.typmods or ())
    return base, mods


def spelled(type_: tuple[str, tuple]) -> str:
    base, mods = type_
    return f"{base}({', '.join(map(str, mods))})" if mods else base


def rewrites(old: tuple[str, tuple] | None, new: tuple[str, tuple]) -> bool:
    """Whether ALTER COLUMN TYPE from old to new rewrites the table: not for the changes
    PostgreSQL knows to be binary-compatible (varchar(n) to text, to varchar or to a longer
    varchar; text to varchar without a length; numeric to a wider precision, same scale)."""
    if old is None:
        return True
    (old_base, old_mods), (new_base, new_mods) = old, new
    if old_base in TEXTUAL and new_base in TEXTUAL:
        if new_base == "text" or not new_mods:
            return False
        return not (old_base == "varchar" and old_mods and new_mods[0] >= old_mods[0])
    if old_base == new_base == "numeric":
        if not new_mods:
            return False
        if not old_mods:
            return True
        old_scale = old_mods[1] if len(old_mods) > 1 else 0
        new_scale = new_mods[1] if len(new_mods) > 1 else 0
        return not (new_mods[0] >= old_mods[0] and new_scale == old_scale)
    return old != new


def calls(node) -> list[str]:
    """The names of the functions an expression calls, and "(subquery)" for a subquery."""
    found = []

    def walk(value):
        if isinstance(value, (tuple, list)):
            for item in value:
                walk(item)
            return
        if not hasattr(value, "__slots__"):
            return
        kind = type(value).__name__
        if kind == "FuncCall":
            found.append(names(value.funcname)[-1])
        elif kind == "SubLink":
            found.append("(subquery)")
        for slot in value.__slots__:
            walk(getattr(value, slot, None))

    walk(node)
    return found


class Catalog:
    """Column types as the migrations read so far left them: table -> column -> type."""

    def __init__(self):
        self.columns: dict[str, dict[str, tuple]] = {}

    def table(self, range_var) -> dict[str, tuple]:
        return self.columns.setdefault(range_var.relname, {})

    def read(self, stmt) -> None:
        kind = type(stmt).__name__
        if kind == "CreateStmt":
            table = self.columns[stmt.relation.relname] = {}
            for element in stmt.tableElts or ():
                if type(element).__name__ == "ColumnDef" and element.typeName is not None:
                    table[element.colname] = type_of(element.typeName)
        elif kind == "AlterTableStmt" and stmt.relation is not None:
            table = self.table(stmt.relation)
            for cmd in stmt.cmds or ():
                if cmd.subtype == AT.AT_AddColumn and cmd.def_ is not None and cmd.def_.typeName is not None:
                    table[cmd.def_.colname] = type_of(cmd.def_.typeName)
                elif cmd.subtype == AT.AT_AlterColumnType:
                    table[cmd.name] = type_of(cmd.def_.typeName)
                elif cmd.subtype == AT.AT_DropColumn:
                    table.pop(cmd.name, None)
        elif kind == "RenameStmt" and stmt.relation is not None:
            if stmt.renameType == enums.ObjectType.OBJECT_COLUMN:
                table = self.table(stmt.relation)
                if stmt.subname in table:
                    table[stmt.newname] = table.pop(stmt.subname)
            elif stmt.renameType == enums.ObjectType.OBJECT_TABLE:
                self.columns[stmt.newname] = self.columns.pop(stmt.relation.relname, {})
        elif kind == "DropStmt" and stmt.removeType == enums.ObjectType.OBJECT_TABLE:
            for parts in stmt.objects or ():
                self.columns.pop(names(parts)[-1], None)


class Statement:
    def __init__(self, raw, text: str, comments: list[tuple[int, str]]):
        self.node = raw.stmt
        self.kind = type(raw.stmt).__name__
        self.comments = comments  # (line, text) of each comment before the statement or in it
        end = raw.stmt_location + raw.stmt_len if raw.stmt_len else len(text)
        body = [t for t in scan(text[raw.stmt_location:end]) if not t.name.endswith("COMMENT")] if text else []
        start = raw.stmt_location + (body[0].start if body else 0)
        self.line = text.count("\n", 0, start) + 1


def statements(text: str) -> tuple[list[Statement], list[tuple[int, str]]]:
    """The file's statements, each with the comments that precede it (since the last `;`) or sit
    in it; and the comments after the last statement, (line, text) each."""
    raws = parse_sql(text)
    comments = [(t.start, text[t.start:t.end + 1]) for t in scan(text) if t.name in ("SQL_COMMENT", "C_COMMENT")]
    result = []
    end = 0
    for raw in raws:
        end = raw.stmt_location + raw.stmt_len if raw.stmt_len else len(text)
        own = [(text.count("\n", 0, start) + 1, body) for start, body in comments if raw.stmt_location <= start < end]
        result.append(Statement(raw, text, own))
    trailing = [(text.count("\n", 0, start) + 1, body) for start, body in comments if start >= end]
    return result, trailing


def comment_text(body: str) -> str:
    return body[2:].strip() if body.startswith("--") else body[2:-2].strip()


class Linter:
    def __init__(self, path: pathlib.Path, text: str, catalog: Catalog):
        self.path, self.text, self.catalog = path, text, catalog
        self.findings: list[tuple[int, str, str]] = []
        self.created: set[str] = set()  # tables (bare names) this file created so far
        self.created_types: set[str] = set()
        self.not_valid: set[tuple[str, str]] = set()  # (table, constraint) added NOT VALID in this file
        self.validates_own = False  # a constraint added NOT VALID here is validated here too
        self.lock_timeout = False
        self.no_transaction = text.split("\n", 1)[0].rstrip() == NO_TRANSACTION

    def existing(self, range_var) -> bool:
        return range_var is not None and range_var.relname not in self.created

    def flag(self, line: int, rule: str, message: str) -> None:
        self.findings.append((line, rule, message))

    def run(self) -> list[tuple[int, str, str]]:
        try:
            parsed, trailing = statements(self.text)
        except ParseError as error:
            return [(1, "parse", f"PostgreSQL's parser refuses the file: {error}")]
        for line, body in trailing:
            if comment_text(body).startswith("lint:"):
                self.flag(line, "opt-out", "an opt-out after the last statement applies to none: put it before its statement")
        for number_, line in enumerate(self.text.split("\n"), 1):
            if number_ > 1 and line.strip() == NO_TRANSACTION:
                self.flag(number_, "no-transaction",
                          f"`{NO_TRANSACTION}` counts only on the first line; here the migrator does not see it")
        # Tables a statement of this file creates, by name: a table renamed and then created again
        # under its old name (partitioning it: the old table becomes a partition) keeps its name.
        self.recreated = {s.node.relation.relname for s in parsed if s.kind == "CreateStmt"}
        for stmt in parsed:
            before = len(self.findings)
            self.statement(stmt)
            self.catalog.read(stmt.node)
            self.opt_outs(stmt, before)
        if self.no_transaction and not any(self.concurrent(s.node, s.kind) for s in parsed) \
                and not self.validates_own:
            self.flag(1, "no-transaction",
                      "nothing here needs to run outside a transaction (no CONCURRENTLY, no validation of a "
                      "constraint this file adds): without the marker a failure leaves nothing half done")
        return sorted(self.findings)

    def opt_outs(self, stmt: Statement, before: int) -> None:
        """Drops the statement's findings its opt-out comments name; flags a malformed or unused one."""
        allowed: dict[str, int] = {}
        for line, body in stmt.comments:
            content = comment_text(body)
            if not content.startswith("lint:"):
                continue
            match = OPT_OUT.match(content)
            if not match or not match["reason"].strip():
                self.flag(line, "opt-out", "write an opt-out as `-- lint: allow RULE[, RULE...] (why it is safe)`; the reason is required")
                continue
            for rule in re.split(r"\s*,\s*", match["rules"]):
                if rule not in RULES:
                    self.flag(line, "opt-out", f"no rule {rule!r} to allow (rules: {', '.join(RULES)})")
                else:
                    allowed[rule] = line
        own = self.findings[before:]
        kept = [f for f in own if f[1] not in allowed]
        used = {f[1] for f in own}
        self.findings[before:] = kept
        for rule, line in allowed.items():
            if rule not in used:
                self.flag(line, "opt-out", f"the opt-out allows {rule}, which the statement below it does not break")

    # The rules, by statement kind.

    def statement(self, stmt: Statement) -> None:
        node, line = stmt.node, stmt.line
        kind = stmt.kind
        if kind == "VariableSetStmt" and node.name == "lock_timeout":
            self.set_lock_timeout(node, line)
            return
        concurrent = self.concurrent(node, kind)
        if concurrent and not self.no_transaction:
            self.flag(line, "no-transaction",
                      f"{concurrent} cannot run in a transaction: put it in a migration of its own whose first line is `{NO_TRANSACTION}`")
        if self.locks(node, kind) and not self.lock_timeout:
            scope = "`set lock_timeout = '2s'` (not LOCAL: this file runs outside a transaction)" if self.no_transaction \
                else "`set local lock_timeout = '2s'`"
            self.flag(line, "lock-timeout",
                      f"this statement locks an existing table; start the file with {scope}, so it gives up instead of queueing everyone behind it")
        handler = getattr(self, "on_" + kind, None)
        if handler:
            handler(node, line)

    def set_lock_timeout(self, node, line: int) -> None:
        value = node.args[0].val if node.kind == enums.VariableSetKind.VAR_SET_VALUE and node.args else None
        raw = getattr(value, "ival", getattr(value, "sval", None))
        zero = raw is None or str(raw).strip() in ("0", "0s", "0ms")
        if self.no_transaction and node.is_local:
            self.flag(line, "lock-timeout", "SET LOCAL does nothing outside a transaction: write `set lock_timeout = ...`")
            return
        self.lock_timeout = not zero

    @staticmethod
    def concurrent(node, kind: str) -> str | None:
        if kind == "IndexStmt" and node.concurrent:
            return "CREATE INDEX CONCURRENTLY"
        if kind == "DropStmt" and node.concurrent:
            return "DROP INDEX CONCURRENTLY"
        if kind == "ReindexStmt" and any(p.defname == "concurrently" for p in node.params or ()):
            return "REINDEX CONCURRENTLY"
        if kind == "RefreshMatViewStmt" and node.concurrent:
            return "REFRESH MATERIALIZED VIEW CONCURRENTLY"
        if kind == "AlterTableStmt" and any(c.subtype == AT.AT_DetachPartition and c.def_.concurrent for c in node.cmds or ()):
            return "DETACH PARTITION CONCURRENTLY"
        return None

    def locks(self, node, kind: str) -> bool:
        """Whether the statement takes a lock that stops reads or writes of an existing table."""
        if kind == "AlterTableStmt":
            return self.existing(node.relation) and not any(
                c.subtype == AT.AT_DetachPartition and c.def_.concurrent for c in node.cmds or ())
        if kind == "IndexStmt":
            return self.existing(node.relation) and not node.concurrent
        if kind == "DropStmt":
            return not node.concurrent and node.removeType in LOCKING_DROPS and any(
                self.names_existing(parts, node.removeType) for parts in node.objects or ())
        if kind == "RenameStmt":
            return self.existing(node.relation)
        if kind in ("CreateTrigStmt", "ClusterStmt", "CreatePolicyStmt", "AlterPolicyStmt", "RuleStmt"):
            return self.existing(getattr(node, "relation", None) or getattr(node, "table", None))
        if kind in ("TruncateStmt", "LockStmt"):
            return any(self.existing(r) for r in node.relations or ())
        if kind == "ReindexStmt":
            return self.concurrent(node, kind) is None and self.existing(node.relation)
        if kind == "RefreshMatViewStmt":
            return not node.concurrent
        if kind == "VacuumStmt":
            return any(o.defname == "full" for o in node.options or ())
        if kind == "AlterDomainStmt":
            return names(node.typeName)[-1] not in self.created_types
        if kind == "CreateStmt":  # a foreign key locks the table it references
            return any(self.existing(c.pktable) for c in self.foreign_keys(node))
        return False

    def names_existing(self, parts, remove_type) -> bool:
        if type(parts).__name__ == "TypeName":
            return names(parts.names)[-1] not in self.created_types
        parts = names(parts)
        if remove_type in (enums.ObjectType.OBJECT_TRIGGER, enums.ObjectType.OBJECT_RULE, enums.ObjectType.OBJECT_POLICY):
            return parts[-2] not in self.created  # schema.table.name: the table
        return parts[-1] not in self.created

    @staticmethod
    def foreign_keys(node):
        for element in node.tableElts or ():
            if type(element).__name__ == "Constraint" and element.contype == CT.CONSTR_FOREIGN:
                yield element
            for constraint in getattr(element, "constraints", None) or ():
                if constraint.contype == CT.CONSTR_FOREIGN:
                    yield constraint

    def on_CreateStmt(self, node, line: int) -> None:
        self.created.add(node.relation.relname)

    def on_CreateTableAsStmt(self, node, line: int) -> None:
        self.created.add(node.into.rel.relname)

    def on_ViewStmt(self, node, line: int) -> None:
        self.created.add(node.view.relname)

    def on_CreateSeqStmt(self, node, line: int) -> None:
        self.created.add(node.sequence.relname)

    def on_CompositeTypeStmt(self, node, line: int) -> None:
        self.created_types.add(node.typevar.relname)

    def on_CreateEnumStmt(self, node, line: int) -> None:
        self.created_types.add(names(node.typeName)[-1])

    def on_CreateDomainStmt(self, node, line: int) -> None:
        self.created_types.add(names(node.domainname)[-1])

    def on_IndexStmt(self, node, line: int) -> None:
        if self.existing(node.relation) and not node.concurrent:
            self.flag(line, "index-concurrently",
                      f"building an index on {qualified(node.relation)} blocks its writes until it is built: "
                      f"CREATE INDEX CONCURRENTLY, in a `{NO_TRANSACTION}` migration")

    def on_AlterDomainStmt(self, node, line: int) -> None:
        if node.subtype == "C" and node.def_ is not None and not node.def_.skip_validation \
                and names(node.typeName)[-1] not in self.created_types:
            self.flag(line, "not-valid",
                      f"a constraint on domain {'.'.join(names(node.typeName))} checks every column of it under lock: "
                      "add it NOT VALID, then VALIDATE CONSTRAINT in a later migration")
        elif node.subtype == "V":
            self.validate(names(node.typeName)[-1], node.name, line)

    def validate(self, owner: str, constraint: str, line: int) -> None:
        # Outside a transaction the add committed, and let its lock go, before the validation:
        # that is a reason of its own for the marker (a new column's check in one file).
        if (owner, constraint) in self.not_valid:
            self.validates_own = True
        if (owner, constraint) in self.not_valid and not self.no_transaction:
            self.flag(line, "validate-same-file",
                      f"{constraint} was added NOT VALID in this file, whose lock is held until it commits, so the "
                      "validation scans under it: validate in a later migration (one a later release carries)")

    def on_RenameStmt(self, node, line: int) -> None:
        if node.renameType not in READ_OBJECTS:
            return
        if node.relation is not None:
            existing = self.existing(node.relation)
            if node.renameType == enums.ObjectType.OBJECT_TABLE and node.relation.relname in self.recreated:
                return  # the name stays: the file creates it again (a swap, e.g. the table partitioned)
        elif node.renameType in (enums.ObjectType.OBJECT_TYPE, enums.ObjectType.OBJECT_DOMAIN):
            existing = names(getattr(node.object, "names", node.object))[-1] not in self.created_types
        else:
            existing = True
        if existing:
            what = f"{qualified(node.relation)}.{node.subname}" if node.subname and node.relation else \
                qualified(node.relation) if node.relation else "it"
            self.flag(line, "rename",
                      f"the previous release still reads {what} by its old name: add the new one beside it "
                      "(expand), and take the old away in a later release (contract)")

    def on_DropStmt(self, node, line: int) -> None:
        if node.removeType not in READ_OBJECTS - {enums.ObjectType.OBJECT_COLUMN, enums.ObjectType.OBJECT_ATTRIBUTE}:
            return
        for parts in node.objects or ():
            if node.removeType == enums.ObjectType.OBJECT_SCHEMA or self.names_existing(parts, node.removeType):
                shown = ".".join(names(parts.names if type(parts).__name__ == "TypeName" else parts)) \
                    if not hasattr(parts, "sval") else parts.sval
                self.flag(line, "drop",
                          f"the previous release may still read {shown}: drop it once no release in service "
                          "does, saying so in `-- lint: allow drop (why)`")

    def on_AlterTableStmt(self, node, line: int) -> None:
        if not self.existing(node.relation):
            return
        table = qualified(node.relation)
        for cmd in node.cmds or ():
            sub = cmd.subtype
            if sub == AT.AT_AddColumn:
                self.add_column(table, cmd.def_, line)
            elif sub == AT.AT_AddConstraint:
                self.add_constraint(node.relation.relname, table, cmd.def_, line)
            elif sub == AT.AT_ValidateConstraint:
                self.validate(node.relation.relname, cmd.name, line)
            elif sub == AT.AT_SetNotNull:
                self.flag(line, "set-not-null",
                          f"SET NOT NULL on {table}.{cmd.name} scans the table under ACCESS EXCLUSIVE: add "
                          f"`check ({cmd.name} is not null) not valid`, validate it in a later migration, then SET NOT NULL "
                          "(no scan since PostgreSQL 12) with `-- lint: allow set-not-null (validated by ...)`")
            elif sub == AT.AT_AlterColumnType:
                self.alter_type(node.relation, table, cmd, line)
            elif sub == AT.AT_DropColumn:
                self.flag(line, "drop",
                          f"the previous release may still read {table}.{cmd.name}: drop it once no release in service "
                          "does, saying so in `-- lint: allow drop (why)`")

    def add_column(self, table: str, column, line: int) -> None:
        constraints = column.constraints or ()
        types = {c.contype for c in constraints}
        base = names(column.typeName.names)[-1]
        default = next((c.raw_expr for c in constraints if c.contype == CT.CONSTR_DEFAULT), None)
        if base in ("serial", "serial4", "bigserial", "serial8", "smallserial", "serial2") \
                or types & {CT.CONSTR_IDENTITY, CT.CONSTR_GENERATED}:
            self.flag(line, "volatile-default",
                      f"{table}.{column.colname} takes a value per row (a sequence or a stored expression), which "
                      "rewrites the table under ACCESS EXCLUSIVE: add it without, and fill it in batches")
        elif default is not None:
            volatile = sorted({f for f in calls(default) if f not in NON_VOLATILE})
            if volatile:
                self.flag(line, "volatile-default",
                          f"{table}.{column.colname}'s default calls {', '.join(volatile)}, evaluated for every row: a "
                          "rewrite under ACCESS EXCLUSIVE. Add the column without a default (or a constant one), "
                          "set the default after, fill the rows in batches")
        is_null_default = default is not None and type(default).__name__ == "A_Const" and default.isnull
        if (CT.CONSTR_NOTNULL in types or column.is_not_null) and (default is None or is_null_default) \
                and not types & {CT.CONSTR_IDENTITY, CT.CONSTR_GENERATED} and not base.endswith("serial"):
            self.flag(line, "not-null-no-default",
                      f"{table}.{column.colname} is NOT NULL without a default: the migration fails on any row there is. "
                      "Give it a constant default, or add it nullable, fill it, and constrain it later")
        for constraint in constraints:
            if constraint.contype in (CT.CONSTR_CHECK, CT.CONSTR_FOREIGN):
                self.flag(line, "not-valid",
                          f"the {'check' if constraint.contype == CT.CONSTR_CHECK else 'reference'} on new column "
                          f"{table}.{column.colname} is checked against every row under lock: add the column, then "
                          "`add constraint ... not valid`, and validate it in a later migration")
            elif constraint.contype in (CT.CONSTR_UNIQUE, CT.CONSTR_PRIMARY):
                self.flag(line, "using-index",
                          f"the {'unique' if constraint.contype == CT.CONSTR_UNIQUE else 'primary'} key on new column "
                          f"{table}.{column.colname} builds its index under lock: add the column, build the index "
                          "CONCURRENTLY, then `add constraint ... using index`")

    def add_constraint(self, relname: str, table: str, constraint, line: int) -> None:
        if constraint.contype in (CT.CONSTR_CHECK, CT.CONSTR_FOREIGN):
            if constraint.skip_validation:
                if constraint.conname:
                    self.not_valid.add((relname, constraint.conname))
            else:
                self.flag(line, "not-valid",
                          f"constraint {constraint.conname or '(unnamed)'} on {table} is checked against every row "
                          "under lock: add it NOT VALID, then `alter table ... validate constraint` in a later migration")
        elif constraint.contype in (CT.CONSTR_UNIQUE, CT.CONSTR_PRIMARY, CT.CONSTR_EXCLUSION) and not constraint.indexname:
            self.flag(line, "using-index",
                      f"constraint {constraint.conname or '(unnamed)'} on {table} builds its index under ACCESS "
                      "EXCLUSIVE: build a unique index CONCURRENTLY first, then `add constraint ... using index`")

    def alter_type(self, relation, table: str, cmd, line: int) -> None:
        column = cmd.def_
        new = type_of(column.typeName)
        old = self.catalog.columns.get(relation.relname, {}).get(cmd.name)
        if column.raw_default is not None or column.collClause is not None or rewrites(old, new):
            shown = "an unknown type" if old is None else spelled(old)
            self.flag(line, "type-change",
                      f"{table}.{cmd.name} from {shown} to {spelled(new)} rewrites or scans the table under "
                      "ACCESS EXCLUSIVE (binary-compatible: varchar to text, to a longer varchar, numeric to a wider "
                      "precision). Add a new column, fill it in batches, switch readers, drop the old one")


def lint(path: pathlib.Path, catalog: Catalog) -> list[str]:
    text = path.read_text(encoding="utf-8")
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return [f"{shown}:{line}: {rule}: {message}" for line, rule, message in Linter(path, text, catalog).run()]


def catalog_before(path: pathlib.Path) -> Catalog:
    """The column types the migrations numbered before this file left (all of them for a file elsewhere)."""
    catalog = Catalog()
    limit = number(path) if path.resolve().parent == MIGRATIONS else None
    for earlier in all_migrations():
        if limit is not None and number(earlier) >= limit:
            break
        try:
            for raw in parse_sql(earlier.read_text(encoding="utf-8")):
                catalog.read(raw.stmt)
        except ParseError:
            pass  # its own lint run reports it
    return catalog


def after_release() -> list[pathlib.Path]:
    baseline = released()
    return [p for p in all_migrations() if number(p) > baseline]


def self_test() -> list[str]:
    problems = []
    seen = {"bad": set(), "good": set()}
    for kind in ("bad", "good"):
        for path in sorted((FIXTURES / kind).glob("*.sql")):
            rule = path.stem.split("--", 1)[0]
            if rule not in RULES and rule != "opt-out":
                problems.append(f"{path.relative_to(ROOT)}: name it RULE.sql or RULE--case.sql after one of {', '.join(RULES)}")
                continue
            seen[kind].add(rule)
            found = lint(path, catalog_before(path))
            rules = {f.split(": ", 2)[1] for f in found}
            # An opt-out fixture breaks a rule as well: the one its opt-out does not excuse.
            if kind == "bad" and (rules != {rule} if rule != "opt-out" else rule not in rules):
                problems.append(f"{path.relative_to(ROOT)}: expected only {rule}, found {sorted(rules) or 'nothing'}")
                problems.extend("    " + f for f in found)
            if kind == "good" and found:
                problems.append(f"{path.relative_to(ROOT)}: expected no finding, found:")
                problems.extend("    " + f for f in found)
    for kind, rules in seen.items():
        for rule in [*RULES, "opt-out"]:
            if rule not in rules:
                problems.append(f"rule {rule} has no {kind} fixture ({FIXTURES.relative_to(ROOT)}/{kind}/{rule}.sql)")
    return problems


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        problems = self_test()
        print("\n".join(problems)) if problems else None
        return 1 if problems else 0
    if argv == ["--count-fixtures"]:
        print(sum(1 for _ in FIXTURES.glob("*/*.sql")))
        return 0
    if argv == ["--list"]:
        for path in after_release():
            print(path.relative_to(ROOT))
        return 0
    paths = [pathlib.Path(a).resolve() for a in argv] if argv else after_release()
    findings = [f for path in paths for f in lint(path, catalog_before(path))]
    if findings:
        print("\n".join(findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
