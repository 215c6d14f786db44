#!/usr/bin/env python3
"""record-examples.py: the `example` of every operation in docs/openapi.json, recorded from a real server.

    record-examples.py record BASE_URL OWNER_URL [FILE]      drive the server through a scripted story and
                                                              write each answer as its response's example
    record-examples.py record-new BASE_URL OWNER_URL [FILE]  the same story, written only to the operations
                                                              with no example or one its schema now refuses
                                                              (a new route, a new required field); the others
                                                              stay byte for byte, so a change's diff is its own
    record-examples.py check [FILE]                           every operation has an example; each validates
                                                              against its schema in the published document and
                                                              in the strict copy (contract.py strict); run with
                                                              .venv's python (jsonschema_rs), as scripts/lint does

The story (four people, one of them a moderator granted by SQL as an operator would, one who resets a
password and is banned): register (and a fifth from an address past its budget of 409 answers, with the code
mailed first),
verify emails with the code read from app.outgoing_mail (as the operator's mailer would send it), buy and
select an item, focus sessions, friends, blocks, a report, events, tips, moderation. Each operation's first
answer of each status becomes the `example` of that response's media type; a shared response
(components.responses: 401, 304, ...) gets one example for all. An operation whose success has no body
(204) or is not JSON (an avatar) is shown by an error answer of its own (404, 400, 422). GET /openapi.json's
example is its answer with `paths` and `components` left out (the whole is the document itself). Lists
are cut to their first two items (the catalog and the tips are long), so totals beside a list may count more.
Ids and times are kept as recorded: an example is a real answer, and a re-recording changes them (a
whole-example diff per operation, reviewed like any other).
Re-record against a migrated and seeded database with the server serving it (scripts/run), OWNER_URL
being the database owner's (focus_owner, the server's MIGRATION_DATABASE_URL): it reads the mail outbox and
grants the moderator. The document is written in contract.py's form; then scripts/lint.
"""

import importlib.util
import json
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

_spec = importlib.util.spec_from_file_location("contract", Path(__file__).resolve().parent / "contract.py")
contract = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(contract)

UNKNOWN = "00000000-0000-4000-8000-000000000000"
PASSWORD = "correct horse"
LIST_ITEMS = 2


class Story:
    def __init__(self, base, database):
        self.base, self.database = base, database
        self.answers = {}  # operationId -> {status: body}
        self.stamp = uuid.uuid4().hex[:8]
        # operationId -> (method, path template), from the document (generated from api.endpoints)
        self.routes = {operation["operationId"]: (method.upper(), path)
                       for path, method, operation in contract.operations(contract.load(contract.DOCUMENT))}

    # The story calls each operation by its operationId, its method and path read from the
    # document (generated from api.endpoints), so it names no path of its own. `op` and `op_at`
    # record the answer as an example; `quiet` and `quiet_at` only use it (a second account's id).
    def op(self, operation_id, body=None, **options):
        return self.op_at(operation_id, {}, body, **options)

    def op_at(self, operation_id, parameters, body=None, query=None, record=True, **options):
        """With the path's parameters by name and an optional query string."""
        method, path = self.routes[operation_id]
        for name, value in parameters.items():
            path = path.replace("{" + name + "}", str(value))
        return self.call(operation_id if record else None, method, path + ("?" + query if query else ""), body, **options)

    def quiet(self, operation_id, body=None, **options):
        return self.op_at(operation_id, {}, body, record=False, **options)

    def quiet_at(self, operation_id, parameters, body=None, query=None, **options):
        return self.op_at(operation_id, parameters, body, query, record=False, **options)

    def call(self, op, method, path, body=None, token=None, expect=None, headers=None, raw=None,
             content_type="application/json"):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, method=method, data=data)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", "Bearer " + token)
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, text, kind = response.status, response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            status, text, kind = error.code, error.read(), error.headers.get("Content-Type", "")
        answer = json.loads(text) if text and "json" in kind else None
        if expect is not None and status != expect:
            sys.exit(f"record-examples: {op} {method} {path} answered {status}, not {expect}: {text[:300]!r}")
        if op is not None and answer is not None:
            self.answers.setdefault(op, {}).setdefault(str(status), answer)
        return answer

    def sql(self, query):
        return subprocess.run(["psql", "-X", "-qAt", "-v", "ON_ERROR_STOP=1", self.database, "-c", query],
                              check=True, capture_output=True, text=True).stdout.strip()

    def mailed_code(self, email):
        return self.sql("select substring(body from 'code is ([0-9]{8})') from app.outgoing_mail "
                        f"where recipient = '{email}' order by id desc limit 1")

    def email(self, name):
        return f"{name}-{self.stamp}@example.com"

    def register(self, name, display):
        return self.op("auth_register", {
            "email": self.email(name), "password": PASSWORD, "display_name": display}, expect=201)

    def verify(self, name, token):
        code = self.mailed_code(self.email(name))
        return self.op("me_email_verification_confirm", {"code": code},
                         token=token, expect=200)

    def run(self):
        c = self.call
        self.op("health", expect=200)
        self.op("ready", expect=200)
        self.op("config_get", expect=200)
        document = c(None, "GET", "/openapi.json", expect=200)
        self.answers["openapi"] = {"200": {k: v for k, v in document.items() if k not in ("paths", "components")}}

        ann = self.register("ann", "Ann")["token"]
        bob = self.register("bob", "Bob")["token"]
        cat = self.register("cat", "Cat")["token"]
        dan = self.register("dan", "Dan")["token"]
        self.op("auth_register", {"email": self.email("ann"), "password": PASSWORD,
                "display_name": "Ann"}, expect=409)
        self.op("auth_register", {"email": "no-at-sign", "password": PASSWORD,
                "display_name": "Ann"}, expect=400)
        # Past the address's budget of 409 answers (lowered to the one just counted, then put
        # back) a sign-up mails a code first (202); the same request with it signs up (201).
        budget = self.sql("select max_taken_answers_per_address from app.auth_settings")
        self.sql("update app.auth_settings set max_taken_answers_per_address = 1")
        eve = {"email": self.email("eve"), "password": PASSWORD, "display_name": "Eve"}
        self.op("auth_register", eve, expect=202)
        code = self.sql("select params ->> 'code' from app.outgoing_mail "
                        f"where recipient = '{eve['email']}' and kind = 'signup_code' order by id desc limit 1")
        self.op("auth_register", {**eve, "code": code}, expect=201)
        self.sql(f"update app.auth_settings set max_taken_answers_per_address = {int(budget)}")
        self.op("auth_login", {"email": self.email("ann"), "password": PASSWORD}, expect=200)
        self.op("auth_login", {"email": self.email("ann"), "password": "wrong horse"}, expect=401)

        # emails: resend a code, verify with it (friend requests find verified emails only)
        self.op("me_email_verification_create", token=ann, expect=202)
        self.op("me_email_verification_confirm", {"code": "00000000"}, token=ann)
        self.verify("ann", ann)
        self.op("me_email_verification_create", token=ann, expect=409)
        self.verify("bob", bob)
        self.verify("cat", cat)
        # The story's people signed up a month ago, as an operator's data would have them: a session
        # never starts before its account, and a gift needs an account 7 days old (docs/gifts.md).
        self.sql("update app.users set created_at = now() - interval '30 days' where email in ("
                 + ", ".join(f"'{self.email(n)}'" for n in ("ann", "bob", "cat", "dan", "eve")) + ")")

        self.op("me_get", token=ann, expect=200)
        bob_id = self.quiet("me_get", token=bob, expect=200)["id"]
        cat_id = self.quiet("me_get", token=cat, expect=200)["id"]
        dan_id = self.quiet("me_get", token=dan, expect=200)["id"]
        self.op("me_get", expect=401)
        self.op("me_get", token=ann, headers={"X-Client-Version": "ios/0.1"}, expect=426)
        self.op("me_update", {"bio": "Mornings, tea, 25-minute islands."},
                token=ann, expect=200)
        self.op("me_update", {"display_name": ""}, token=ann, expect=400)
        self.op("me_export_get", token=ann, expect=200)
        self.op("me_tokens_list", token=ann, expect=200)

        # the shop
        catalog = self.op("shop_items_list", token=ann, expect=200)
        self.op("shop_items_sync", {"known_ids": []}, expect=200)
        self.op("shop_items_sync", {"known_ids": "all"}, expect=400)
        items = [i for group in catalog.values() if isinstance(group, list) for i in group if isinstance(i, dict)]
        cheapest = min(items, key=lambda i: i.get("price", 0))
        self.op("shop_purchases_create", {"item_id": UNKNOWN}, token=ann, expect=404)
        self.op("shop_purchases_create", {"item_id": cheapest["id"]}, token=ann)
        self.op("me_items_list", token=ann, expect=200)
        self.op_at("me_selected_update", {"kind": cheapest['kind']}, {"item_id": cheapest["id"]}, token=ann)
        self.op_at("me_selected_update", {"kind": cheapest['kind']}, {"item_id": UNKNOWN}, token=ann)
        phone = "5f1b" + uuid.uuid4().hex + uuid.uuid4().hex[:28]
        self.op("me_push_tokens_update", {"token": phone, "platform": "apns", "environment": "production",
                "app_version": "2.1.0", "locale": "en-GB"}, token=ann, expect=200)
        self.op("me_push_tokens_update", {"token": "not-a-token", "platform": "apns",
                "environment": "production"}, token=ann, expect=400)
        self.op_at("me_push_tokens_delete", {"token": '0' * 64}, token=ann, expect=404)

        # focus sessions: an offline one recorded from 35 to 5 minutes ago, before the live one starts
        now = self.sql("select to_char((now() - interval '5 minutes') at time zone 'utc', "
                       "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        start = self.sql("select to_char((now() - interval '35 minutes') at time zone 'utc', "
                         "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        started = self.op("focus_sessions_start", {"planned_minutes": 25, "tag": "Reading"},
                          token=ann, expect=201)
        session_id = started["id"] if "id" in started else started["session"]["id"]
        self.op("focus_sessions_start", {"planned_minutes": 25}, token=ann, expect=409)
        self.op("focus_sessions_current_get", token=ann, expect=200)
        self.op_at("focus_sessions_finish", {"id": session_id}, {"ended_at": "2020-01-01T00:00:00Z"},
                   token=ann, expect=422)
        self.op_at("focus_sessions_finish", {"id": session_id}, token=ann)
        self.op_at("focus_sessions_abandon", {"id": session_id}, token=ann)
        self.op_at("focus_sessions_finish", {"id": UNKNOWN}, token=ann, expect=404)
        self.op_at("focus_sessions_abandon", {"id": UNKNOWN}, token=ann, expect=404)
        recorded = str(uuid.uuid4())
        self.op("focus_sessions_create", {"id": recorded, "started_at": start, "ended_at": now,
                "tag": "math"}, token=ann, expect=201)
        self.op("focus_sessions_create", {"id": str(uuid.uuid4()), "started_at": now,
                "ended_at": start}, token=ann, expect=422)
        self.op_at("focus_sessions_rate", {"id": recorded}, {"rating": "good"}, token=ann,
                   expect=200)
        self.op_at("focus_sessions_rate", {"id": UNKNOWN}, {"rating": "good"}, token=ann,
                   expect=404)
        listed = self.op_at("focus_sessions_list", {}, None, "limit=1", token=ann, expect=200)
        self.op_at("focus_sessions_list", {}, None, f"limit=1&cursor={listed['next_cursor']}", token=ann, expect=200)
        self.op_at("focus_sessions_list", {}, None, "from=yesterday", token=ann, expect=400)
        self.op_at("focus_sessions_list", {}, None, "cursor=bm90LWEtY3Vyc29y", token=ann, expect=400)
        self.op("focus_sessions_batch_create", {"sessions": [
                {"id": str(uuid.uuid4()), "started_at": start, "ended_at": now},
                {"id": str(uuid.uuid4()), "started_at": now, "ended_at": start}]}, token=bob, expect=200)
        self.op("focus_sessions_batch_create", {"sessions": []}, token=bob, expect=400)
        # streak freezes: coins granted by an operator, two bought, a third refused (docs/streaks.md)
        self.sql(f"select app.grant_coins(id, 200, 'examples') from app.users where email = '{self.email('ann')}'")
        self.op("me_streak_freezes_create", token=ann, expect=201)
        self.quiet("me_streak_freezes_create", token=ann, expect=201)
        self.op("me_streak_freezes_create", token=ann, expect=409)
        self.op("me_stats_get", token=ann, expect=200)
        self.op("me_stats_daily_get", token=ann, expect=200)
        self.op_at("me_stats_daily_get", {}, None, "from=2026-12-07&to=2026-12-01", token=ann, expect=400)
        self.op("me_stats_tags_get", token=ann, expect=200)
        self.op_at("me_stats_tags_get", {}, None, "from=2026-02-30", token=ann, expect=400)
        self.op("focus_sessions_current_get", token=cat, expect=204)

        # tips
        self.op("mindfulness_tips_sync", {"known_ids": []}, expect=200)
        self.op("mindfulness_tips_sync", {"known_ids": 1}, expect=400)
        self.op("mindfulness_tips_sync_original", {"itemIds": []}, expect=200)
        self.op("mindfulness_tips_sync_original", {"itemIds": 1}, expect=400)

        # friends
        request = self.op("friend_requests_create", {"email": self.email("bob")}, token=ann,
                          expect=201)
        self.op("friend_requests_create", {"email": self.email("nobody")}, token=ann)
        self.op("friend_requests_list", token=bob, expect=200)
        request_id = request["id"] if "id" in request else request["request"]["id"]
        self.op_at("friend_requests_accept", {"id": request_id}, token=bob, expect=200)
        self.op_at("friend_requests_accept", {"id": UNKNOWN}, token=bob, expect=404)
        self.op_at("friends_list", {}, None, "limit=20", token=ann, expect=200)
        self.op_at("friends_list", {}, None, "limit=0", token=ann, expect=400)
        # a focus room: ann opens it inviting bob, bob joins by the code, ann starts it
        room = self.op("rooms_create", {"planned_minutes": 25, "invite": [bob_id]}, token=ann, expect=201)["room"]
        self.op("rooms_create", {"planned_minutes": 0}, token=bob, expect=400)
        self.op("rooms_create", {"planned_minutes": 25, "invite": [dan_id]}, token=bob, expect=404)
        self.op_at("rooms_join", {"code": "ZZZZZZZZ"}, token=bob, expect=404)
        self.op_at("rooms_join", {"code": room['code']}, token=cat, expect=404)  # not invited: told apart from no room by nothing
        self.op_at("rooms_join", {"code": "ABCDEFGHJKMNPQRSTVWXY"}, token=bob, expect=400)
        self.op_at("rooms_start", {"id": room['id']}, token=ann, expect=409)
        self.op_at("rooms_join", {"code": room['code']}, token=bob, expect=200)
        self.op("rooms_create", {"planned_minutes": 25}, token=bob, expect=409)
        self.op_at("rooms_start", {"id": room['id']}, token=bob, expect=403)
        self.op_at("rooms_start", {"id": UNKNOWN}, token=ann, expect=404)
        self.op_at("rooms_start", {"id": room['id']}, token=ann, expect=200)
        self.op_at("rooms_start", {"id": "not-an-id"}, token=ann, expect=400)
        self.op_at("rooms_join", {"code": room['code']}, token=dan, expect=404)  # not invited
        self.op_at("rooms_leave", {"id": room['id']}, token=bob, expect=409)
        self.op_at("rooms_leave", {"id": UNKNOWN}, token=bob, expect=404)
        self.op_at("rooms_leave", {"id": "not-an-id"}, token=bob, expect=400)
        self.op_at("rooms_get", {"id": room['id']}, token=bob, expect=200)
        self.op_at("rooms_get", {"id": UNKNOWN}, token=bob, expect=404)
        self.op_at("rooms_get", {"id": "not-an-id"}, token=bob, expect=400)
        self.op("rooms_list", token=bob, expect=200)
        left = self.quiet("rooms_create", {"planned_minutes": 10}, token=cat, expect=201)["room"]
        self.op_at("rooms_leave", {"id": left['id']}, token=cat, expect=200)
        # gifts: ann sends bob coins (accepted) and an item (declined), and is refused the rest; dan, unverified, may not send
        ann_id = self.quiet("me_get", token=ann, expect=200)["id"]
        self.sql(f"select app.grant_coins('{ann_id}', 400, 'examples')")
        pip = self.sql("select id from app.shop_items where name = 'Pip the Fox'")
        coins = self.op("gifts_create", {"to": bob_id, "coins": 50}, token=ann, expect=201)["gift"]
        item = self.op("gifts_create", {"to": bob_id, "item_id": pip}, token=ann, expect=201)["gift"]
        self.op("gifts_create", {"to": bob_id, "coins": 50, "item_id": pip}, token=ann, expect=400)
        self.op("gifts_create", {"to": dan_id, "coins": 5}, token=ann, expect=404)
        self.op("gifts_create", {"to": ann_id, "coins": 5}, token=dan, expect=403)
        self.op("gifts_create", {"to": bob_id, "item_id": pip}, token=ann, expect=409)
        self.op("gifts_create", {"to": ann_id, "coins": 5}, token=ann, expect=422)
        self.op("gifts_create", {"to": bob_id, "coins": 451}, token=ann, expect=429)
        self.op_at("gifts_received_list", {}, None, "limit=1", token=bob, expect=200)
        self.op_at("gifts_received_list", {}, None, "cursor=bm90LWEtY3Vyc29y", token=bob, expect=400)
        self.op_at("gifts_accept", {"id": coins['id']}, token=bob, expect=200)
        self.op_at("gifts_accept", {"id": UNKNOWN}, token=bob, expect=404)
        self.op_at("gifts_accept", {"id": "not-an-id"}, token=bob, expect=400)
        self.op_at("gifts_decline", {"id": item['id']}, token=bob, expect=200)
        self.op_at("gifts_decline", {"id": coins['id']}, token=bob, expect=409)
        self.op_at("gifts_decline", {"id": UNKNOWN}, token=bob, expect=404)
        self.op_at("gifts_decline", {"id": "not-an-id"}, token=bob, expect=400)
        self.op_at("gifts_accept", {"id": item['id']}, token=bob, expect=409)
        self.op("gifts_sent_list", token=ann, expect=200)
        self.op_at("gifts_sent_list", {}, None, "limit=0", token=ann, expect=400)
        declined = self.quiet("friend_requests_create", {"email": self.email("cat")}, token=ann, expect=201)
        self.op_at("friend_requests_decline", {"id": UNKNOWN}, token=cat, expect=404)
        declined_id = declined["id"] if "id" in declined else declined["request"]["id"]
        self.op_at("friend_requests_decline", {"id": declined_id}, token=cat, expect=204)
        self.op_at("friend_requests_delete", {"id": UNKNOWN}, token=ann, expect=404)
        self.op_at("users_get", {"id": bob_id}, token=ann, expect=200)
        self.op_at("users_get", {"id": UNKNOWN}, token=ann, expect=404)
        # achievements: ann's own with progress, a friend's unlocked ones
        self.op("me_achievements_list", token=ann, expect=200)
        self.op_at("users_achievements_list", {"id": bob_id}, token=ann, expect=200)
        self.op_at("users_achievements_list", {"id": UNKNOWN}, token=ann, expect=404)
        self.op_at("users_achievements_list", {"id": "not-an-id"}, token=ann, expect=400)
        self.op_at("leaderboards_get", {"period": "weekly"}, None, "scope=friends", token=ann, expect=200)
        self.op_at("leaderboards_get", {"period": "weekly"}, None, "limit=0", token=ann, expect=400)
        self.op_at("events_list", {}, None, "after=0&wait=0", token=bob, expect=200)
        self.op_at("events_list", {}, None, "wait=61", token=bob, expect=400)
        self.op_at("friends_delete", {"user_id": UNKNOWN}, token=ann, expect=404)
        self.op_at("friends_delete", {"user_id": bob_id}, token=ann, expect=204)

        # blocks and reports
        self.op_at("users_block_create", {"id": UNKNOWN}, token=ann, expect=404)
        self.op_at("users_block_create", {"id": cat_id}, token=ann, expect=204)
        self.op("me_blocks_list", token=ann, expect=200)
        self.op_at("me_blocks_list", {}, None, "cursor=bm90LWEtY3Vyc29y", token=ann, expect=400)
        self.op_at("users_block_delete", {"id": UNKNOWN}, token=ann, expect=404)
        self.op_at("users_block_delete", {"id": cat_id}, token=ann, expect=204)
        self.op_at("users_report_create", {"id": bob_id}, {"reason": "inappropriate_name",
                   "details": "The name is an insult."},
                   token=ann, expect=201)
        self.op_at("users_report_create", {"id": bob_id}, {"reason": "rude"}, token=ann, expect=400)

        # avatars
        png = (Path(__file__).resolve().parent.parent.parent / "assets" / "pet" / "mochi-cat.png").read_bytes()
        self.op("me_avatar_update", raw=png, content_type="image/png", token=bob, expect=204)
        self.op("me_avatar_update", raw=b"not an image", content_type="image/png", token=bob)
        self.op_at("users_avatar_get", {"id": UNKNOWN}, token=ann, expect=404)
        key = {"Idempotency-Key": "example-" + self.stamp}
        self.quiet("me_avatar_delete", token=dan, headers=key, expect=204)
        self.op("auth_logout", token=dan, headers=key, expect=422)  # the key was for another route
        other = {"Idempotency-Key": "example-resend-" + self.stamp}
        self.quiet("me_email_verification_create", token=dan, headers=other, expect=202)
        self.op("me_avatar_delete", token=dan, headers=other, expect=422)

        # moderation: a moderator is granted by a DBA (sql/migrations/0017_moderation.sql)
        self.sql(f"insert into app.moderators (user_id, note) values ('{cat_id}', 'support team')")
        self.op("moderation_reports_list", token=ann, expect=403)
        reports = self.op("moderation_reports_list", token=cat, expect=200)
        report_id = next(r["id"] for r in reports["reports"])
        self.op_at("moderation_reports_resolve", {"id": report_id},
                   {"status": "actioned", "reason": "Renamed: the name is an insult."}, token=cat, expect=200)
        self.op_at("moderation_reports_resolve", {"id": report_id},
                   {"status": "dismissed", "reason": "Again."}, token=cat, expect=409)
        self.op_at("moderation_users_rename", {"id": bob_id},
                   {"display_name": "Islander 7", "reason": "The name was an insult."}, token=cat, expect=200)
        self.op_at("moderation_users_rename", {"id": UNKNOWN},
                   {"display_name": "Islander 7", "reason": "The name was an insult."}, token=cat, expect=404)
        self.op_at("moderation_users_avatar_delete", {"id": bob_id},
                   {"reason": "Not a picture of a pet."}, token=cat, expect=200)
        self.op_at("moderation_users_avatar_delete", {"id": UNKNOWN},
                   {"reason": "Not a picture of a pet."}, token=cat, expect=404)
        until = self.sql("select to_char((now() + interval '7 days') at time zone 'utc', "
                         "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        self.op_at("moderation_users_suspend", {"id": bob_id},
                   {"until": until, "reason": "Insults in the name, twice."}, token=cat, expect=200)
        self.op_at("moderation_users_suspend", {"id": bob_id},
                   {"until": start, "reason": "In the past."}, token=cat, expect=400)
        self.op("me_get", token=bob, expect=403)
        self.op_at("moderation_users_ban", {"id": UNKNOWN}, {"reason": "Spam."}, token=cat,
                   expect=404)

        # the fourth person: tokens, password, reset, logout, leaving
        second = self.quiet("auth_login", {"email": self.email("dan"), "password": PASSWORD},
                            expect=200)["token"]
        self.op_at("me_tokens_delete", {"id": UNKNOWN}, token=second, expect=404)
        self.op("me_email_update", {"password": PASSWORD, "email": self.email("dan-new")},
                token=second, expect=200)
        self.op("me_email_update", {"password": "wrong horse", "email": self.email("dan-new")},
                token=second, expect=403)
        self.op("me_password_update", {"current_password": PASSWORD, "new_password": "short"},
                token=second, expect=400)
        self.op("me_delete", {"password": "wrong horse"}, token=second, expect=403)
        self.op("auth_password_reset_create", {"email": self.email("dan")}, expect=202)
        self.op("auth_password_reset_create", {"email": ""}, expect=400)
        self.op("auth_password_reset_confirm",
                {"email": self.email("dan"), "code": "00000000", "new_password": "battery staple"}, expect=400)
        self.sql("select app.send_password_resets()")  # the mailer's queue, as the operator's job runs it
        code = self.mailed_code(self.email("dan"))
        self.op("auth_password_reset_confirm",
                {"email": self.email("dan"), "code": code, "new_password": "battery staple"}, expect=200)
        self.op_at("moderation_users_ban", {"id": dan_id}, {"reason": "Spam."}, token=cat,
                   expect=200)

        # Every read without path parameters the story has not called yet (a new list of the
        # caller's own), called as Ann: recorded without a line of its own here.
        for operation_id, (method, path) in self.routes.items():
            if method == "GET" and "{" not in path and operation_id not in self.answers:
                self.op(operation_id, token=ann, expect=200)

        # 401 for every operation that takes a token: one shared example (components.responses.Unauthorized)
        self.op("me_get", expect=401)


def shorten(value):
    """The answer with every list cut to its first LIST_ITEMS items (the catalog and the tips would
    otherwise make a third of the document; what a list holds shows in two)."""
    if isinstance(value, dict):
        return {key: shorten(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shorten(item) for item in value[:LIST_ITEMS]]
    return value


def has_example(operation):
    """Whether the operation has an example of its own (a shared answer's, 401, counts for all)."""
    return any("example" in media for response in operation.get("responses", {}).values() if "$ref" not in response
               for media in response.get("content", {}).values())


def apply(document, answers, only_new=False):
    """Writes each recorded answer as the example of its response's media type (the earlier ones go
    first, so an answer no longer recorded leaves no stale example); returns the count. only_new:
    only to the operations without an example, touching nothing else."""
    if only_new:
        stale = stale_operations(document)
        answers = {operation["operationId"]: answers.get(operation["operationId"], {})
                   for path, method, operation in contract.operations(document)
                   if not has_example(operation) or f"{method.upper()} {path}" in stale}
        for path, method, operation in contract.operations(document):
            if operation["operationId"] in answers:
                for response in operation.get("responses", {}).values():
                    for media in response.get("content", {}).values():
                        media.pop("example", None)
    else:
        for response in contract.responses(document):
            for media in response.get("content", {}).values():
                media.pop("example", None)
    count = 0
    for path, method, operation in contract.operations(document):
        if operation.get("operationId") not in answers and only_new:
            continue
        recorded = answers.get(operation.get("operationId"), {})
        for status, body in sorted(recorded.items()):
            response = operation.get("responses", {}).get(status)
            if response is None:
                sys.exit(f"record-examples: {operation['operationId']} answered {status}, which the document lacks")
            response = contract.resolve_response(document, response)
            content = response.get("content", {})
            media = content.get("application/problem+json" if int(status) >= 400 else "application/json")
            if media is None:
                media = next(iter(content.values()), None)
            if media is None:
                continue
            media["example"] = shorten(body)
            count += 1
    return count


def examples(document):
    """(where, schema, example, strict schema) for every example in the document."""
    strict = contract.strict(document)
    found = []
    for path, method, operation in contract.operations(document):
        strict_operation = strict["paths"][path][method]
        for status, response in operation.get("responses", {}).items():
            resolved = contract.resolve_response(document, response)
            strict_resolved = contract.resolve_response(strict, strict_operation["responses"][status])
            for kind, media in resolved.get("content", {}).items():
                if "example" in media:
                    found.append((f"{method.upper()} {path} {status} {kind}", media.get("schema", {}), media["example"],
                                  strict_resolved["content"][kind].get("schema", {})))
    return found, strict


def stale_operations(document):
    """The operations ("METHOD /path") with an example of their own that its schema now refuses."""
    return {" ".join(finding.split(" ")[:2]) for finding in check(document)[0] if ": the example breaks" in finding}


def check(document):
    import jsonschema_rs  # noqa: PLC0415 (only in .venv)
    findings = []
    for path, method, operation in contract.operations(document):
        if not has_example(operation):
            findings.append(f"{method.upper()} {path}: no example of its own (scripts/lib/record-examples.py record)")
    found, strict = examples(document)
    for where, schema, example, strict_schema in found:
        for name, doc, sch in (("published", document, schema), ("strict", strict, strict_schema)):
            validator = jsonschema_rs.Draft202012Validator({**sch, "components": doc["components"]})
            for error in list(validator.iter_errors(example))[:3]:
                findings.append(f"{where}: the example breaks the {name} schema: {error.message[:200]} "
                                f"(at {'/'.join(map(str, error.instance_path))})")
    return findings, len(found)


def main(argv):
    if len(argv) >= 4 and argv[1] in ("record", "record-new"):
        path = Path(argv[4]) if len(argv) > 4 else contract.DOCUMENT
        story = Story(argv[2], argv[3])
        story.run()
        document = contract.load(path)
        count = apply(document, story.answers, only_new=argv[1] == "record-new")
        path.write_text(contract.dump(contract.rewrite(document)))
        print(f"  {count} examples written, on {len(story.answers)} operations")
    elif len(argv) >= 2 and argv[1] == "check":
        path = Path(argv[2]) if len(argv) > 2 else contract.DOCUMENT
        findings, count = check(contract.load(path))
        for finding in findings[:40]:
            print(finding)
        sys.exit(1 if findings else 0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
