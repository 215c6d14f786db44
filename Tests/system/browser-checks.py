"""The web pages in a real browser: Debian's chromium, headless, driven by Selenium through
chromedriver, against the real server and database. One line per step; the first failure
ends the run with status 1. A screenshot of each page goes to the folder given
(scripts/test: its cluster's folder; Tests/system/browser-checks.sh --screenshots docs/screenshots).

  browser-checks.py BASE_URL OWNER_DATABASE_URL SCREENSHOT_DIR

Steps: the deletion flow with JavaScript off (email, the code read from app.outgoing_mail,
confirm, then sign-in refused); a non-moderator refused at the console's sign-in; a moderator
signs in with the keyboard; a report arrives and the queue shows it without a reload; the name
<img src=x onerror=alert(1)> shows as text and no dialog opens; the moderator reaches the
reported user's page and suspends them with Tab and Enter only; the audit log; every input
has a label on every page; every page fits 320 px; nothing loads from another host.
"""

import json
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

XSS = "<img src=x onerror=alert(1)>"
# Waiting for something the page must do (a live update, a navigation): the run fails only
# if it never happens; no assertion is about how long it took.
PATIENCE = 30

base, owner_url, shots = sys.argv[1], sys.argv[2], sys.argv[3]
step = 0


def ok(passed, text):
    global step
    step += 1
    print(f"{'ok' if passed else 'not ok'} {step} - {text}", flush=True)
    if not passed:
        raise SystemExit(1)


def sql(statement):
    return subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", owner_url, "-c", statement],
                          check=True, capture_output=True, text=True).stdout.strip()


def api(method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request) as response:
            raw = response.read()
            return response.status, (json.loads(raw) if raw else None), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


def register(name, display_name):
    email = f"{name}-{uuid.uuid4().hex[:8]}@example.com"
    status, answer, _ = api("POST", "/auth/register", {"email": email, "password": "correct horse", "display_name": display_name})
    assert status == 201, answer
    return email, answer["user"]["id"], answer["token"]


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,900",
                 "--no-first-run", "--disable-extensions", "--disable-background-networking"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
# A page that is replaced while a condition reads it (a form's answer arriving) leaves the
# element found a moment before stale: the condition is asked again, as for a missing one.
wait = WebDriverWait(driver, PATIENCE, ignored_exceptions=[StaleElementReferenceException])


def shot(name):
    driver.save_screenshot(f"{shots}/{name}.png")


def labelled():
    """Every visible input and select has a <label for> (or is inside one)."""
    return driver.execute_script("""
        return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter(e =>
            !(e.id && document.querySelector('label[for="' + CSS.escape(e.id) + '"]')) && !e.closest('label')
        ).map(e => e.name || e.outerHTML);""")


def fits(width=320):
    """The page at `width` px has no horizontal scrolling; then back to the desktop size."""
    driver.set_window_size(width, 900)
    scroll = driver.execute_script("return document.documentElement.scrollWidth")
    driver.set_window_size(1100, 900)
    return scroll <= width


def same_origin_only():
    return driver.execute_script("""
        return performance.getEntriesByType('resource').map(e => e.name)
            .filter(n => !n.startsWith(location.origin + '/'));""")


def page_checks(name):
    missing, foreign = labelled(), same_origin_only()
    ok(not missing and not foreign and fits(),
       f"{name}: every input labelled, nothing from another host, fits 320 px" + (f" (unlabelled: {missing}, foreign: {foreign})" if missing or foreign else ""))


def focusables():
    return driver.execute_script("""
        return [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')]
            .filter(e => !e.disabled && e.offsetParent !== null);""")


def tab_to(element):
    """Presses Tab from the top of the page until `element` has the focus; False if it never does."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    for _ in range(2 * len(focusables()) + 4):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.switch_to.active_element == element:
            return True
    return False


def every_action_by_tab():
    """Tab from the top reaches every link, button and field of the page."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    wanted = focusables()
    reached = []
    for _ in range(2 * len(wanted) + 4):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        reached.append(driver.switch_to.active_element)
    return [e.get_attribute("outerHTML")[:80] for e in wanted if e not in reached]


def no_dialog():
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


try:
    # The CSP as served, on a page and on its script.
    with urllib.request.urlopen(base + "/account/delete") as response:
        csp = response.headers["Content-Security-Policy"]
    print(f"# Content-Security-Policy: {csp}")
    ok("script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp,
       "the pages carry a strict CSP: scripts from this origin only, no inline script, no framing")

    # 1. Account deletion, JavaScript off.
    email, deleted_id, _ = register("leaving", "Leaving Soon")
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    driver.get(base + "/account/delete")
    page_checks("deletion page")
    shot("account-delete")
    field = driver.find_element(By.ID, "email")
    field.send_keys(email)
    field.send_keys(Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.ID, "code"))
    ok(email in driver.find_element(By.TAG_NAME, "main").text, "the email is sent with JavaScript off; the page asks for the code")
    page_checks("code page")
    shot("account-delete-code")
    sql("select app.send_deletion_codes()")  # the mailer's step (app.take_outgoing_mail runs it first)
    code = sql(f"select substring(body from 'Your code is (\\d{{8}})') from app.outgoing_mail "
               f"where recipient = '{email}' and subject ~ 'deletion code' order by id desc limit 1")
    ok(len(code) == 8, "the code is read from app.outgoing_mail")
    driver.find_element(By.ID, "code").send_keys(code + Keys.ENTER)
    wait.until(lambda d: "is deleted" in d.find_element(By.TAG_NAME, "h1").text)
    text = driver.find_element(By.TAG_NAME, "main").text
    ok("What was deleted" in text and "What is kept" in text and "anonymous" in text,
       "the account is deleted; the page says what was deleted and what is kept")
    shot("account-deleted")
    status, answer, _ = api("POST", "/auth/login", {"email": email, "password": "correct horse"})
    ok(status == 401 and sql(f"select display_name from app.users where id = '{deleted_id}'") == "Deleted user",
       f"signing in afterwards is refused ({status} {answer['code']}); the account is the tombstone")
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    # 2. The console: a non-moderator is refused.
    mod_email, mod_id, _ = register("moderator", "Mia Moderator")
    sql(f"insert into app.moderators (user_id, note) values ('{mod_id}', 'browser checks')")
    member_email, _, member_token = register("member", "Morgan Member")
    driver.get(base + "/moderation")
    ok(driver.current_url.endswith("/moderation/sign-in"), "the console without a session goes to the sign-in page")
    page_checks("sign-in page")
    shot("moderation-sign-in")
    driver.find_element(By.ID, "email").send_keys(member_email)
    driver.find_element(By.ID, "password").send_keys("correct horse" + Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".error"))
    ok("Only moderators" in driver.find_element(By.CSS_SELECTOR, ".error").text and not driver.get_cookies(),
       "a non-moderator's sign-in is refused and gets no cookie")
    driver.get(base + "/moderation")
    ok(driver.current_url.endswith("/moderation/sign-in"), "... and the queue still sends them to the sign-in page")

    # 3. The moderator signs in with the keyboard only.
    driver.get(base + "/moderation/sign-in")
    ok(tab_to(driver.find_element(By.ID, "email")), "Tab reaches the email field")
    ActionChains(driver).send_keys(mod_email, Keys.TAB, "correct horse", Keys.ENTER).perform()
    wait.until(lambda d: d.find_elements(By.ID, "queue"))
    cookie = driver.get_cookie("fi_console")
    ok(cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
       and driver.execute_script("return document.cookie") == "",
       "the moderator is in: the session cookie is HttpOnly and SameSite=Strict, invisible to scripts")
    wait.until(lambda d: d.find_element(By.ID, "live-status").text.startswith("Live"))
    ok(True, "the queue page listens for reports (its event stream is open)")
    page_checks("queue page")

    # 4. A report arrives: the queue shows it without a reload; the XSS name is text.
    xss_email, xss_id, _ = register("xss", XSS)
    marker = driver.execute_script("document.body.dataset.loaded = 'once'; return document.body.dataset.loaded")
    status, answer, _ = api("POST", f"/users/{xss_id}/report", {"reason": "inappropriate_name", "details": "Look at this name"}, member_token)
    report_id = answer["report"]["id"]
    wait.until(lambda d: d.find_elements(By.ID, f"report-{report_id}"))
    ok(driver.execute_script("return document.body.dataset.loaded") == marker,
       "a new report appears in the queue live (the page was not reloaded)")
    article = driver.find_element(By.ID, f"report-{report_id}")
    ok(XSS in article.text and not driver.find_elements(By.CSS_SELECTOR, "#queue img") and no_dialog(),
       f"the display name {XSS} shows as text: no element made of it, no dialog")
    shot("moderation-queue")
    missing = every_action_by_tab()
    ok(not missing, "Tab reaches every link, button and field of the queue" + (f" (not: {missing})" if missing else ""))

    # 5. Keyboard only: to the reported user's page, then suspend them.
    link = article.find_element(By.CSS_SELECTOR, "h2 a")
    ok(tab_to(link), "Tab reaches the reported user's link")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait.until(lambda d: d.find_elements(By.ID, "suspend-until"))
    ok(driver.find_element(By.ID, "user-name").text == XSS and no_dialog(), "the user's page shows the name as text too")
    page_checks("user page")
    missing = every_action_by_tab()
    ok(not missing, "Tab reaches every link, button and field of the user's page" + (f" (not: {missing})" if missing else ""))
    shot("moderation-user")
    until = sql("select to_char((now() + interval '3 days') at time zone 'UTC', 'YYYY-MM-DD HH24:MI')")
    ok(tab_to(driver.find_element(By.ID, "suspend-until")), "Tab reaches the suspension's end")
    ActionChains(driver).send_keys(until, Keys.TAB, "Offensive display name", Keys.ENTER).perform()
    wait.until(lambda d: d.find_elements(By.ID, "suspended"))
    audited = sql(f"select action || ' ' || reason from app.moderation_actions where user_id = '{xss_id}' and moderator = '{mod_id}'")
    ok(audited == "suspend Offensive display name", "Enter suspends the author of the reported name; the audit has the reason")
    status, answer, _ = api("POST", "/auth/login", {"email": xss_email, "password": "correct horse"})
    status, answer, _ = api("GET", "/me", token=answer["token"])
    ok(status == 403 and answer["code"] == "account_suspended", "the suspended user's app gets 403 account_suspended")

    # 6. The audit log, and back to the queue: the report shows the suspension.
    driver.get(base + "/moderation/audit")
    ok(XSS in driver.find_element(By.ID, "audit").text and "Offensive display name" in driver.find_element(By.ID, "audit").text,
       "the audit log lists the suspension with the name as text")
    page_checks("audit page")
    shot("moderation-audit")
    driver.get(base + "/moderation")
    ok("Suspended until" in driver.find_element(By.ID, f"report-{report_id}").text, "the queue shows the user suspended")

    # 7. A moderator no longer listed is refused at once, with the same cookie.
    sql(f"delete from app.moderators where user_id = '{mod_id}'")
    driver.get(base + "/moderation")
    ok("Only moderators" in driver.find_element(By.CSS_SELECTOR, ".error").text, "a session whose account is no longer a moderator is refused")
    ok(no_dialog(), "no dialog opened on any page")
finally:
    driver.quit()
