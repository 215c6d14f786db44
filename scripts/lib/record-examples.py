#!/usr/bin/env python3
"""record-examples.py: the `example` of every operation in docs/openapi.json, recorded from a real server.

    record-examples.py record BASE_URL OWNER_URL [FILE]      drive the server through a scripted story and
                                                              write each answer as its response's example
    record-examples.py record-new BASE_URL OWNER_URL [FILE]  the same story, written only to the operations
                                                              that have no example yet (the others stay
                                                              byte for byte: a new route's change is its own)
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

    def op(self, operation_id, path_parameters=None, body=None, **options):
        """Calls an operation by its operationId, its method and path read from the document, so the
        story names no path of its own."""
        method, path = self.routes[operation_id]
        for name, value in (path_parameters or {}).items():
            path = path.replace("{" + name + "}", str(value))
        return self.call(operation_id, method, path, body, **options)

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
        return self.call("auth_register", "POST", "/auth/register", {
            "email": self.email(name), "password": PASSWORD, "display_name": display}, expect=201)

    def verify(self, name, token):
        code = self.mailed_code(self.email(name))
        return self.call("me_email_verification_confirm", "POST", "/me/email/verify", {"code": code},
                         token=token, expect=200)

    def run(self):
        c = self.call
        c("health", "GET", "/health", expect=200)
        c("ready", "GET", "/ready", expect=200)
        c("config_get", "GET", "/config", expect=200)
        document = c(None, "GET", "/openapi.json", expect=200)
        self.answers["openapi"] = {"200": {k: v for k, v in document.items() if k not in ("paths", "components")}}

        ann = self.register("ann", "Ann")["token"]
        bob = self.register("bob", "Bob")["token"]
        cat = self.register("cat", "Cat")["token"]
        dan = self.register("dan", "Dan")["token"]
        c("auth_register", "POST", "/auth/register", {"email": self.email("ann"), "password": PASSWORD,
                                                      "display_name": "Ann"}, expect=409)
        c("auth_register", "POST", "/auth/register", {"email": "no-at-sign", "password": PASSWORD,
                                                      "display_name": "Ann"}, expect=400)
        # Past the address's budget of 409 answers (lowered to the one just counted, then put
        # back) a sign-up mails a code first (202); the same request with it signs up (201).
        budget = self.sql("select max_taken_answers_per_address from app.auth_settings")
        self.sql("update app.auth_settings set max_taken_answers_per_address = 1")
        eve = {"email": self.email("eve"), "password": PASSWORD, "display_name": "Eve"}
        c("auth_register", "POST", "/auth/register", eve, expect=202)
        code = self.sql("select params ->> 'code' from app.outgoing_mail "
                        f"where recipient = '{eve['email']}' and kind = 'signup_code' order by id desc limit 1")
        c("auth_register", "POST", "/auth/register", {**eve, "code": code}, expect=201)
        self.sql(f"update app.auth_settings set max_taken_answers_per_address = {int(budget)}")
        c("auth_login", "POST", "/auth/login", {"email": self.email("ann"), "password": PASSWORD}, expect=200)
        c("auth_login", "POST", "/auth/login", {"email": self.email("ann"), "password": "wrong horse"}, expect=401)

        # emails: resend a code, verify with it (friend requests find verified emails only)
        c("me_email_verification_create", "POST", "/me/email/resend", token=ann, expect=202)
        c("me_email_verification_confirm", "POST", "/me/email/verify", {"code": "00000000"}, token=ann)
        self.verify("ann", ann)
        c("me_email_verification_create", "POST", "/me/email/resend", token=ann, expect=409)
        self.verify("bob", bob)
        self.verify("cat", cat)
        # The story's people signed up a month ago, as an operator's data would have them: a session
        # never starts before its account, and a gift needs an account 7 days old (docs/gifts.md).
        self.sql("update app.users set created_at = now() - interval '30 days' where email in ("
                 + ", ".join(f"'{self.email(n)}'" for n in ("ann", "bob", "cat", "dan", "eve")) + ")")

        c("me_get", "GET", "/me", token=ann, expect=200)
        bob_id = c(None, "GET", "/me", token=bob, expect=200)["id"]
        cat_id = c(None, "GET", "/me", token=cat, expect=200)["id"]
        dan_id = c(None, "GET", "/me", token=dan, expect=200)["id"]
        c("me_get", "GET", "/me", expect=401)
        c("me_get", "GET", "/me", token=ann, headers={"X-Client-Version": "ios/0.1"}, expect=426)
        c("me_update", "PATCH", "/me", {"bio": "Mornings, tea, 25-minute islands."},
          token=ann, expect=200)
        c("me_update", "PATCH", "/me", {"display_name": ""}, token=ann, expect=400)
        c("me_export_get", "GET", "/me/export", token=ann, expect=200)
        c("me_tokens_list", "GET", "/me/tokens", token=ann, expect=200)

        # the shop
        catalog = c("shop_items_list", "GET", "/shop/items", token=ann, expect=200)
        c("shop_items_sync", "POST", "/sync/shop-items", {"known_ids": []}, expect=200)
        c("shop_items_sync", "POST", "/sync/shop-items", {"known_ids": "all"}, expect=400)
        items = [i for group in catalog.values() if isinstance(group, list) for i in group if isinstance(i, dict)]
        cheapest = min(items, key=lambda i: i.get("price", 0))
        c("shop_purchases_create", "POST", "/shop/purchases", {"item_id": UNKNOWN}, token=ann, expect=404)
        c("shop_purchases_create", "POST", "/shop/purchases", {"item_id": cheapest["id"]}, token=ann)
        c("me_items_list", "GET", "/me/items", token=ann, expect=200)
        c("me_selected_update", "PUT", f"/me/selected/{cheapest['kind']}", {"item_id": cheapest["id"]}, token=ann)
        c("me_selected_update", "PUT", f"/me/selected/{cheapest['kind']}", {"item_id": UNKNOWN}, token=ann)
        phone = "5f1b" + uuid.uuid4().hex + uuid.uuid4().hex[:28]
        c("me_push_tokens_update", "PUT", "/me/push-tokens", {"token": phone, "platform": "apns", "environment": "production",
                                                             "app_version": "2.1.0", "locale": "en-GB"}, token=ann, expect=200)
        c("me_push_tokens_update", "PUT", "/me/push-tokens", {"token": "not-a-token", "platform": "apns",
                                                             "environment": "production"}, token=ann, expect=400)
        self.op("me_push_tokens_list", token=ann, expect=200)
        c("me_push_tokens_delete", "DELETE", f"/me/push-tokens/{'0' * 64}", token=ann, expect=404)

        # focus sessions: an offline one recorded from 35 to 5 minutes ago, before the live one starts
        now = self.sql("select to_char((now() - interval '5 minutes') at time zone 'utc', "
                       "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        start = self.sql("select to_char((now() - interval '35 minutes') at time zone 'utc', "
                         "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        started = c("focus_sessions_start", "POST", "/focus-sessions/start", {"planned_minutes": 25, "tag": "Reading"},
                    token=ann, expect=201)
        session_id = started["id"] if "id" in started else started["session"]["id"]
        c("focus_sessions_start", "POST", "/focus-sessions/start", {"planned_minutes": 25}, token=ann, expect=409)
        c("focus_sessions_current_get", "GET", "/focus-sessions/current", token=ann, expect=200)
        c("focus_sessions_finish", "POST", f"/focus-sessions/{session_id}/finish", {"ended_at": "2020-01-01T00:00:00Z"},
          token=ann, expect=422)
        c("focus_sessions_finish", "POST", f"/focus-sessions/{session_id}/finish", token=ann)
        c("focus_sessions_abandon", "POST", f"/focus-sessions/{session_id}/abandon", token=ann)
        c("focus_sessions_finish", "POST", f"/focus-sessions/{UNKNOWN}/finish", token=ann, expect=404)
        c("focus_sessions_abandon", "POST", f"/focus-sessions/{UNKNOWN}/abandon", token=ann, expect=404)
        recorded = str(uuid.uuid4())
        c("focus_sessions_create", "POST", "/focus-sessions", {"id": recorded, "started_at": start, "ended_at": now,
                                                               "tag": "math"}, token=ann, expect=201)
        c("focus_sessions_create", "POST", "/focus-sessions", {"id": str(uuid.uuid4()), "started_at": now,
                                                               "ended_at": start}, token=ann, expect=422)
        c("focus_sessions_rate", "POST", f"/focus-sessions/{recorded}/rating", {"rating": "good"}, token=ann,
          expect=200)
        c("focus_sessions_rate", "POST", f"/focus-sessions/{UNKNOWN}/rating", {"rating": "good"}, token=ann,
          expect=404)
        listed = c("focus_sessions_list", "GET", "/focus-sessions?limit=1", token=ann, expect=200)
        c("focus_sessions_list", "GET", f"/focus-sessions?limit=1&cursor={listed['next_cursor']}", token=ann, expect=200)
        c("focus_sessions_list", "GET", "/focus-sessions?from=yesterday", token=ann, expect=400)
        c("focus_sessions_list", "GET", "/focus-sessions?cursor=bm90LWEtY3Vyc29y", token=ann, expect=400)
        c("focus_sessions_batch_create", "POST", "/focus-sessions/batch", {"sessions": [
            {"id": str(uuid.uuid4()), "started_at": start, "ended_at": now},
            {"id": str(uuid.uuid4()), "started_at": now, "ended_at": start}]}, token=bob, expect=200)
        c("focus_sessions_batch_create", "POST", "/focus-sessions/batch", {"sessions": []}, token=bob, expect=400)
        # streak freezes: coins granted by an operator, two bought, a third refused (docs/streaks.md)
        self.sql(f"select app.grant_coins(id, 200, 'examples') from app.users where email = '{self.email('ann')}'")
        c("me_streak_freezes_create", "POST", "/me/streak-freezes", token=ann, expect=201)
        c(None, "POST", "/me/streak-freezes", token=ann, expect=201)
        c("me_streak_freezes_create", "POST", "/me/streak-freezes", token=ann, expect=409)
        c("me_stats_get", "GET", "/me/stats", token=ann, expect=200)
        c("me_stats_daily_get", "GET", "/me/stats/daily", token=ann, expect=200)
        c("me_stats_daily_get", "GET", "/me/stats/daily?from=2026-12-07&to=2026-12-01", token=ann, expect=400)
        c("me_stats_tags_get", "GET", "/me/stats/tags", token=ann, expect=200)
        c("me_stats_tags_get", "GET", "/me/stats/tags?from=2026-02-30", token=ann, expect=400)
        c("focus_sessions_current_get", "GET", "/focus-sessions/current", token=cat, expect=204)

        # tips
        c("mindfulness_tips_sync", "POST", "/sync/mindfulness-tips", {"known_ids": []}, expect=200)
        c("mindfulness_tips_sync", "POST", "/sync/mindfulness-tips", {"known_ids": 1}, expect=400)
        c("mindfulness_tips_sync_original", "POST", "/Sync/MindfulnessTips", {"itemIds": []}, expect=200)
        c("mindfulness_tips_sync_original", "POST", "/Sync/MindfulnessTips", {"itemIds": 1}, expect=400)

        # friends
        request = c("friend_requests_create", "POST", "/friend-requests", {"email": self.email("bob")}, token=ann,
                    expect=201)
        c("friend_requests_create", "POST", "/friend-requests", {"email": self.email("nobody")}, token=ann)
        c("friend_requests_list", "GET", "/friend-requests", token=bob, expect=200)
        request_id = request["id"] if "id" in request else request["request"]["id"]
        c("friend_requests_accept", "POST", f"/friend-requests/{request_id}/accept", token=bob, expect=200)
        c("friend_requests_accept", "POST", f"/friend-requests/{UNKNOWN}/accept", token=bob, expect=404)
        c("friends_list", "GET", "/friends?limit=20", token=ann, expect=200)
        c("friends_list", "GET", "/friends?limit=0", token=ann, expect=400)
        # a focus room: ann opens it inviting bob, bob joins by the code, ann starts it
        room = c("rooms_create", "POST", "/rooms", {"planned_minutes": 25, "invite": [bob_id]}, token=ann, expect=201)["room"]
        c("rooms_create", "POST", "/rooms", {"planned_minutes": 0}, token=bob, expect=400)
        c("rooms_create", "POST", "/rooms", {"planned_minutes": 25, "invite": [dan_id]}, token=bob, expect=404)
        c("rooms_join", "POST", "/rooms/ZZZZZZZZ/join", token=bob, expect=404)
        c("rooms_join", "POST", f"/rooms/{room['code']}/join", token=cat, expect=404)  # not invited: told apart from no room by nothing
        c("rooms_join", "POST", "/rooms/ABCDEFGHJKMNPQRSTVWXY/join", token=bob, expect=400)
        c("rooms_start", "POST", f"/rooms/{room['id']}/start", token=ann, expect=409)
        c("rooms_join", "POST", f"/rooms/{room['code']}/join", token=bob, expect=200)
        c("rooms_create", "POST", "/rooms", {"planned_minutes": 25}, token=bob, expect=409)
        c("rooms_start", "POST", f"/rooms/{room['id']}/start", token=bob, expect=403)
        c("rooms_start", "POST", f"/rooms/{UNKNOWN}/start", token=ann, expect=404)
        c("rooms_start", "POST", f"/rooms/{room['id']}/start", token=ann, expect=200)
        c("rooms_start", "POST", "/rooms/not-an-id/start", token=ann, expect=400)
        c("rooms_join", "POST", f"/rooms/{room['code']}/join", token=dan, expect=404)  # not invited
        c("rooms_leave", "POST", f"/rooms/{room['id']}/leave", token=bob, expect=409)
        c("rooms_leave", "POST", f"/rooms/{UNKNOWN}/leave", token=bob, expect=404)
        c("rooms_leave", "POST", "/rooms/not-an-id/leave", token=bob, expect=400)
        c("rooms_get", "GET", f"/rooms/{room['id']}", token=bob, expect=200)
        c("rooms_get", "GET", f"/rooms/{UNKNOWN}", token=bob, expect=404)
        c("rooms_get", "GET", "/rooms/not-an-id", token=bob, expect=400)
        c("rooms_list", "GET", "/rooms", token=bob, expect=200)
        left = c(None, "POST", "/rooms", {"planned_minutes": 10}, token=cat, expect=201)["room"]
        c("rooms_leave", "POST", f"/rooms/{left['id']}/leave", token=cat, expect=200)
        # gifts: ann sends bob coins (accepted) and an item (declined), and is refused the rest; dan, unverified, may not send
        ann_id = c(None, "GET", "/me", token=ann, expect=200)["id"]
        self.sql(f"select app.grant_coins('{ann_id}', 400, 'examples')")
        pip = self.sql("select id from app.shop_items where name = 'Pip the Fox'")
        coins = c("gifts_create", "POST", "/gifts", {"to": bob_id, "coins": 50}, token=ann, expect=201)["gift"]
        item = c("gifts_create", "POST", "/gifts", {"to": bob_id, "item_id": pip}, token=ann, expect=201)["gift"]
        c("gifts_create", "POST", "/gifts", {"to": bob_id, "coins": 50, "item_id": pip}, token=ann, expect=400)
        c("gifts_create", "POST", "/gifts", {"to": dan_id, "coins": 5}, token=ann, expect=404)
        c("gifts_create", "POST", "/gifts", {"to": ann_id, "coins": 5}, token=dan, expect=403)
        c("gifts_create", "POST", "/gifts", {"to": bob_id, "item_id": pip}, token=ann, expect=409)
        c("gifts_create", "POST", "/gifts", {"to": ann_id, "coins": 5}, token=ann, expect=422)
        c("gifts_create", "POST", "/gifts", {"to": bob_id, "coins": 451}, token=ann, expect=429)
        c("gifts_received_list", "GET", "/gifts/received?limit=1", token=bob, expect=200)
        c("gifts_received_list", "GET", "/gifts/received?cursor=bm90LWEtY3Vyc29y", token=bob, expect=400)
        c("gifts_accept", "POST", f"/gifts/{coins['id']}/accept", token=bob, expect=200)
        c("gifts_accept", "POST", f"/gifts/{UNKNOWN}/accept", token=bob, expect=404)
        c("gifts_accept", "POST", "/gifts/not-an-id/accept", token=bob, expect=400)
        c("gifts_decline", "POST", f"/gifts/{item['id']}/decline", token=bob, expect=200)
        c("gifts_decline", "POST", f"/gifts/{coins['id']}/decline", token=bob, expect=409)
        c("gifts_decline", "POST", f"/gifts/{UNKNOWN}/decline", token=bob, expect=404)
        c("gifts_decline", "POST", "/gifts/not-an-id/decline", token=bob, expect=400)
        c("gifts_accept", "POST", f"/gifts/{item['id']}/accept", token=bob, expect=409)
        c("gifts_sent_list", "GET", "/gifts/sent", token=ann, expect=200)
        c("gifts_sent_list", "GET", "/gifts/sent?limit=0", token=ann, expect=400)
        declined = c(None, "POST", "/friend-requests", {"email": self.email("cat")}, token=ann, expect=201)
        c("friend_requests_decline", "POST", f"/friend-requests/{UNKNOWN}/decline", token=cat, expect=404)
        declined_id = declined["id"] if "id" in declined else declined["request"]["id"]
        c("friend_requests_decline", "POST", f"/friend-requests/{declined_id}/decline", token=cat, expect=204)
        c("friend_requests_delete", "DELETE", f"/friend-requests/{UNKNOWN}", token=ann, expect=404)
        c("users_get", "GET", f"/users/{bob_id}", token=ann, expect=200)
        c("users_get", "GET", f"/users/{UNKNOWN}", token=ann, expect=404)
        # achievements: ann's own with progress, a friend's unlocked ones
        c("me_achievements_list", "GET", "/me/achievements", token=ann, expect=200)
        c("users_achievements_list", "GET", f"/users/{bob_id}/achievements", token=ann, expect=200)
        c("users_achievements_list", "GET", f"/users/{UNKNOWN}/achievements", token=ann, expect=404)
        c("users_achievements_list", "GET", "/users/not-an-id/achievements", token=ann, expect=400)
        c("leaderboards_get", "GET", "/leaderboards/weekly?scope=friends", token=ann, expect=200)
        c("leaderboards_get", "GET", "/leaderboards/weekly?limit=0", token=ann, expect=400)
        c("events_list", "GET", "/events?after=0&wait=0", token=bob, expect=200)
        c("events_list", "GET", "/events?wait=61", token=bob, expect=400)
        c("friends_delete", "DELETE", f"/friends/{UNKNOWN}", token=ann, expect=404)
        c("friends_delete", "DELETE", f"/friends/{bob_id}", token=ann, expect=204)

        # blocks and reports
        c("users_block_create", "POST", f"/users/{UNKNOWN}/block", token=ann, expect=404)
        c("users_block_create", "POST", f"/users/{cat_id}/block", token=ann, expect=204)
        c("me_blocks_list", "GET", "/me/blocks", token=ann, expect=200)
        c("me_blocks_list", "GET", "/me/blocks?cursor=bm90LWEtY3Vyc29y", token=ann, expect=400)
        c("users_block_delete", "DELETE", f"/users/{UNKNOWN}/block", token=ann, expect=404)
        c("users_block_delete", "DELETE", f"/users/{cat_id}/block", token=ann, expect=204)
        c("users_report_create", "POST", f"/users/{bob_id}/report", {"reason": "inappropriate_name",
                                                                      "details": "The name is an insult."},
          token=ann, expect=201)
        c("users_report_create", "POST", f"/users/{bob_id}/report", {"reason": "rude"}, token=ann, expect=400)

        # avatars
        png = (Path(__file__).resolve().parent.parent.parent / "assets" / "pet" / "mochi-cat.png").read_bytes()
        c("me_avatar_update", "PUT", "/me/avatar", raw=png, content_type="image/png", token=bob, expect=204)
        c("me_avatar_update", "PUT", "/me/avatar", raw=b"not an image", content_type="image/png", token=bob)
        c("users_avatar_get", "GET", f"/users/{UNKNOWN}/avatar", token=ann, expect=404)
        key = {"Idempotency-Key": "example-" + self.stamp}
        c(None, "DELETE", "/me/avatar", token=dan, headers=key, expect=204)
        c("auth_logout", "POST", "/auth/logout", token=dan, headers=key, expect=422)  # the key was for another route
        other = {"Idempotency-Key": "example-resend-" + self.stamp}
        c(None, "POST", "/me/email/resend", token=dan, headers=other, expect=202)
        c("me_avatar_delete", "DELETE", "/me/avatar", token=dan, headers=other, expect=422)

        # moderation: a moderator is granted by a DBA (sql/migrations/0017_moderation.sql)
        self.sql(f"insert into app.moderators (user_id, note) values ('{cat_id}', 'support team')")
        c("moderation_reports_list", "GET", "/moderation/reports", token=ann, expect=403)
        reports = c("moderation_reports_list", "GET", "/moderation/reports", token=cat, expect=200)
        report_id = next(r["id"] for r in reports["reports"])
        c("moderation_reports_resolve", "POST", f"/moderation/reports/{report_id}/resolve",
          {"status": "actioned", "reason": "Renamed: the name is an insult."}, token=cat, expect=200)
        c("moderation_reports_resolve", "POST", f"/moderation/reports/{report_id}/resolve",
          {"status": "dismissed", "reason": "Again."}, token=cat, expect=409)
        c("moderation_users_rename", "POST", f"/moderation/users/{bob_id}/rename",
          {"display_name": "Islander 7", "reason": "The name was an insult."}, token=cat, expect=200)
        c("moderation_users_rename", "POST", f"/moderation/users/{UNKNOWN}/rename",
          {"display_name": "Islander 7", "reason": "The name was an insult."}, token=cat, expect=404)
        c("moderation_users_avatar_delete", "DELETE", f"/moderation/users/{bob_id}/avatar",
          {"reason": "Not a picture of a pet."}, token=cat, expect=200)
        c("moderation_users_avatar_delete", "DELETE", f"/moderation/users/{UNKNOWN}/avatar",
          {"reason": "Not a picture of a pet."}, token=cat, expect=404)
        until = self.sql("select to_char((now() + interval '7 days') at time zone 'utc', "
                         "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        c("moderation_users_suspend", "POST", f"/moderation/users/{bob_id}/suspend",
          {"until": until, "reason": "Insults in the name, twice."}, token=cat, expect=200)
        c("moderation_users_suspend", "POST", f"/moderation/users/{bob_id}/suspend",
          {"until": start, "reason": "In the past."}, token=cat, expect=400)
        c("me_get", "GET", "/me", token=bob, expect=403)
        c("moderation_users_ban", "POST", f"/moderation/users/{UNKNOWN}/ban", {"reason": "Spam."}, token=cat,
          expect=404)

        # the fourth person: tokens, password, reset, logout, leaving
        second = c(None, "POST", "/auth/login", {"email": self.email("dan"), "password": PASSWORD},
                   expect=200)["token"]
        c("me_tokens_delete", "DELETE", f"/me/tokens/{UNKNOWN}", token=second, expect=404)
        c("me_email_update", "POST", "/me/email", {"password": PASSWORD, "email": self.email("dan-new")},
          token=second, expect=200)
        c("me_email_update", "POST", "/me/email", {"password": "wrong horse", "email": self.email("dan-new")},
          token=second, expect=403)
        c("me_password_update", "POST", "/me/password", {"current_password": PASSWORD, "new_password": "short"},
          token=second, expect=400)
        c("me_delete", "DELETE", "/me", {"password": "wrong horse"}, token=second, expect=403)
        c("auth_password_reset_create", "POST", "/auth/password-reset", {"email": self.email("dan")}, expect=202)
        c("auth_password_reset_create", "POST", "/auth/password-reset", {"email": ""}, expect=400)
        c("auth_password_reset_confirm", "POST", "/auth/password-reset/confirm",
          {"email": self.email("dan"), "code": "00000000", "new_password": "battery staple"}, expect=400)
        self.sql("select app.send_password_resets()")  # the mailer's queue, as the operator's job runs it
        code = self.mailed_code(self.email("dan"))
        c("auth_password_reset_confirm", "POST", "/auth/password-reset/confirm",
          {"email": self.email("dan"), "code": code, "new_password": "battery staple"}, expect=200)
        c("moderation_users_ban", "POST", f"/moderation/users/{dan_id}/ban", {"reason": "Spam."}, token=cat,
          expect=200)

        # 401 for every operation that takes a token: one shared example (components.responses.Unauthorized)
        c("me_get", "GET", "/me", expect=401)


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
        answers = {operation["operationId"]: answers.get(operation["operationId"], {})
                   for _, _, operation in contract.operations(document) if not has_example(operation)}
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
