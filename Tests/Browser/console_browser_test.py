#!/usr/bin/env python3
"""The console in a real browser (issue 16): Debian's chromium driven by its chromedriver over
WebDriver (selenium, pointed at /usr/bin/chromedriver so nothing is downloaded), against a real
`vaultctl serve --console` on a temporary vault.

Each test is a person's flow, done with the keyboard where the flow says so; axe-core (shipped in the
axe-selenium-python package) must report no serious or critical violation on any page; and the
security cases are each refused for their reason. Screenshots of the main pages go to
SCREENSHOT_DIR (default .build/console-screenshots).

Usage: console_browser_test.py VAULTCTL_BINARY [--model]
With --model, only the flows that need the real local model run (MODEL_SERVER_URL must be set, as
scripts/model-server run sets it; make test-model does). CONSOLE_TESTS=name,name runs only those flows.
Exit 0 when every test passes, 1 when one fails; 2 with a message when chromium, chromedriver or
selenium is missing (make test installs them).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait
    from axe_selenium_python import Axe
except ImportError as error:
    print(f"console_browser_test: {error}: run 'make test' (it installs selenium and axe-selenium-python in .build/venv)",
          file=sys.stderr)
    sys.exit(2)

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 20


class Console:
    """A temporary vault and `vaultctl serve --console` on it; stopped and removed at the end."""

    def __init__(self, vaultctl, extra=()):
        self.vaultctl = vaultctl
        self.root = tempfile.mkdtemp(prefix="console-browser-")
        self.vault = os.path.join(self.root, "vault")
        self.passphrase = os.path.join(self.root, "passphrase")
        with open(self.passphrase, "w") as file:
            file.write("correct horse battery staple\n")
        self.run("init", "--kdf-memory-mib", "19", "--kdf-iterations", "2", "--kdf-parallelism", "1")
        self.log = open(os.path.join(self.root, "serve.log"), "w+")
        self.daemon = subprocess.Popen([vaultctl, "serve", "--console", "--vault", self.vault, "--passphrase-file", self.passphrase, *extra],
                                       stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.launch = self.wait_for_launch_url()
        self.origin = re.match(r"http://127\.0\.0\.1:\d+", self.launch).group(0)

    def run(self, *arguments, unlock=True):
        extra = ["--passphrase-file", self.passphrase] if unlock else []
        return subprocess.run([self.vaultctl, *arguments, "--vault", self.vault, *extra], capture_output=True, text=True, timeout=120)

    def wait_for_launch_url(self):
        deadline = time.time() + 60
        while time.time() < deadline:
            self.log.seek(0)
            text = self.log.read()
            found = re.search(r"launch URL in your browser: (\S+)", text)
            if found and "listening on" in text:
                return found.group(1)
            if self.daemon.poll() is not None:
                raise RuntimeError("vaultctl serve --console exited: " + text)
            time.sleep(0.1)
        raise RuntimeError("no launch URL within 60 s")

    def stop(self):
        if self.daemon.poll() is None:
            self.daemon.terminate()
            self.daemon.wait(timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--no-first-run", "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def until(driver, condition):
    """Waits for `condition`; the page re-renders as it loads, so an element gone stale is retried."""
    return WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def wait_text(driver, text):
    until(driver, lambda d: text in d.find_element(By.TAG_NAME, "body").text)


def check_keyboard_reach(driver, page, failures):
    """Every visible control on the page is reached by Tab alone, from the top, in a bounded walk. A
    group of radio buttons is one stop, as browsers make it (the arrow keys move within it)."""
    total = driver.execute_script("""
        const controls = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
          .filter((e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length > 0);
        controls.forEach((e, i) => { e.dataset.keyboard = e.type === "radio" && e.name ? `radio:${e.name}` : String(i); });
        document.activeElement?.blur();
        return new Set(controls.map((e) => e.dataset.keyboard)).size;
    """)
    reached = set()
    for _ in range(total + 10):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        index = driver.execute_script("return document.activeElement ? document.activeElement.dataset.keyboard ?? null : null")
        if index is not None:
            reached.add(index)
        if len(reached) == total:
            break
    missing = driver.execute_script("""
        return [...document.querySelectorAll('[data-keyboard]')].filter((e) => !arguments[0].includes(e.dataset.keyboard))
          .map((e) => e.outerHTML.slice(0, 90));
    """, sorted(reached))
    if missing:
        failures.append(f"keyboard on {page}: {len(missing)} of {total} controls not reached by Tab: {missing[:3]}")


def check_accessibility(driver, page, failures):
    """axe-core finds no serious or critical violation, and Tab reaches every control."""
    check_keyboard_reach(driver, page, failures)
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    serious = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
    for violation in serious:
        failures.append(f"axe on {page}: {violation['impact']} {violation['id']}: {violation['help']}")


def screenshot(driver, name):
    folder = os.environ.get("SCREENSHOT_DIR", ".build/console-screenshots")
    os.makedirs(folder, exist_ok=True)
    driver.save_screenshot(os.path.join(folder, name + ".png"))


def sign_in(driver, console):
    driver.get(console.launch)
    until(driver, lambda d: d.current_url == console.origin + "/")
    wait_text(driver, "Create a project")


def press(element):
    """Activates a button or link with the keyboard (focus, then Enter), as a person without a mouse does."""
    element.send_keys(Keys.ENTER)


def type_into(driver, element_id, text):
    element = driver.find_element(By.ID, element_id)
    element.clear()
    element.send_keys(text)


def select_value(driver, element_id, value):
    driver.execute_script("const s = document.getElementById(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'));",
                          element_id, value)


def open_new_document(driver, console, project, title):
    """Signs in, creates a fiction project and a document in it, and waits until its editor shows."""
    sign_in(driver, console)
    type_into(driver, "new-name", project)
    select_value(driver, "new-register", "fiction")
    press(driver.find_element(By.XPATH, "//button[text()='Create']"))
    wait_text(driver, "Binder")
    type_into(driver, "node-title", title)
    driver.find_element(By.ID, "node-title").send_keys(Keys.ENTER)
    until(driver, lambda d: [h.text for h in d.find_elements(By.CSS_SELECTOR, ".editor h2")] == [title])


# --- the flows -------------------------------------------------------------------------------

def test_write_a_novel_with_the_keyboard(driver, console, failures):
    """Create a long-form project with the keyboard alone, add a document, write in the single text view,
    insert a snippet, see it sealed, reload and find it again, switch to blocks and back; reorder
    documents with Alt+Up."""
    sign_in(driver, console)
    check_accessibility(driver, "projects", failures)
    name = driver.find_element(By.ID, "new-name")
    name.send_keys("The harbour")
    name.send_keys(Keys.TAB)                                      # to the register select
    driver.switch_to.active_element.send_keys("fiction")
    driver.switch_to.active_element.send_keys(Keys.TAB)           # kind
    driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)    # long-form
    driver.find_element(By.ID, "new-name").send_keys(Keys.ENTER)  # submits the form
    wait_text(driver, "Binder")
    for title in ["Arrival", "Departure"]:
        title_field = driver.find_element(By.ID, "node-title")
        title_field.send_keys(title)
        title_field.send_keys(Keys.ENTER)
        until(driver, lambda d: [h.text for h in d.find_elements(By.CSS_SELECTOR, ".editor h2")] == [title])
    # A long-form project's document opens as one text: two paragraphs typed, sealed on the pause.
    manuscript = driver.find_element(By.ID, "manuscript")
    manuscript.send_keys("The boat came in at dawn, grey water under the quay.", Keys.ENTER, Keys.ENTER, "Nobody was waiting.")
    until(driver, lambda d: "Sealed (2 paragraphs resealed)" in d.find_element(By.CLASS_NAME, "save-state").text)
    # A snippet from the fiction library, chosen and inserted with the keyboard after the first paragraph.
    manuscript.send_keys(Keys.CONTROL, Keys.HOME)
    driver.find_element(By.ID, "snippet-choice").send_keys("Scene break")
    driver.find_element(By.XPATH, "//button[text()='Insert snippet']").send_keys(Keys.ENTER)
    until(driver, lambda d: "Sealed (1 paragraph resealed)" in d.find_element(By.CLASS_NAME, "save-state").text)
    screenshot(driver, "editor")
    check_accessibility(driver, "editor", failures)
    driver.refresh()
    expected = "The boat came in at dawn, grey water under the quay.\n\n* * *\n\nNobody was waiting."
    until(driver, lambda d: d.find_element(By.ID, "manuscript").get_attribute("value") == expected)
    # The same document as blocks, and back.
    driver.find_element(By.XPATH, "//button[text()='Show as blocks']").send_keys(Keys.ENTER)
    until(driver, lambda d: [t.get_attribute("value") for t in d.find_elements(By.CSS_SELECTOR, ".editor .block textarea")]
          == ["The boat came in at dawn, grey water under the quay.", "* * *", "Nobody was waiting."])
    driver.find_element(By.XPATH, "//button[text()='Show as one text']").send_keys(Keys.ENTER)
    until(driver, lambda d: d.find_element(By.ID, "manuscript").get_attribute("value") == expected)
    # The text format keeps a block's id where it can tell its place: an edited middle paragraph
    # keeps its id, a new one has none.
    kept = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/text-format.js').then(({ toText, fromText }) => {
          const old = [{ id: 'a', kind: 'heading-1', text: 'One' }, { id: 'b', kind: 'paragraph', text: 'Two' }, { id: 'c', kind: 'quote', text: 'Three' }];
          const same = fromText(toText(old), old).map((b) => b.id + ':' + b.kind);
          const edited = fromText('# One\\n\\nTwo, and more\\n\\nNew\\n\\n> Three', old).map((b) => b.id + ':' + b.kind + ':' + b.text);
          done([same, edited]);
        }, (e) => done(String(e)));
    """)
    if kept != [["a:heading-1", "b:paragraph", "c:quote"], ["a:heading-1:One", "b:paragraph:Two, and more", "null:paragraph:New", "c:quote:Three"]]:
        failures.append(f"text-format.js does not keep block ids as it should: {kept}")
    # Paragraphs that look like markup, or begin with a backslash, come back as they were, kind and
    # words, however often they go round; texts one text cannot carry keep the document in blocks.
    tricky = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/text-format.js').then(({ toText, fromText, fitsOneText }) => {
          let blocks = ['- not a list', '# not a heading', '> not a quote', '\\\\back', '\\\\- both', '#hashtag', '  indented', 'tail  ']
            .map((text, i) => ({ id: String(i), kind: 'paragraph', text }))
            .concat([{ id: 'h', kind: 'heading-2', text: '# in a heading' }, { id: 'q', kind: 'quote', text: '- in a quote' }]);
          const start = JSON.stringify(blocks.map((b) => [b.kind, b.text]));
          for (let round = 0; round < 3; round++) blocks = fromText(toText(blocks), blocks);
          const carried = JSON.stringify(blocks.map((b) => [b.kind, b.text])) === start;
          const refused = ['one\\n\\ntwo', 'one\\n  \\ntwo', '\\nlead', 'trail\\n'].map((text) => fitsOneText([{ kind: 'paragraph', text }]));
          done([carried, refused, fitsOneText([{ kind: 'paragraph', text: 'line\\nbreak' }])]);
        }, (e) => done(String(e)));
    """)
    if tricky != [True, [False, False, False, False], True]:
        failures.append(f"text-format.js changes a writer's paragraphs on a round trip, or takes a text it cannot carry: {tricky}")
    # Reorder: Departure (second) moves up with Alt+Up on its link.
    departure = driver.find_element(By.LINK_TEXT, "Departure")
    departure.send_keys(Keys.ALT, Keys.ARROW_UP)
    until(driver, lambda d: [a.text for a in d.find_elements(By.CSS_SELECTOR, ".binder li > a")][:2] == ["Departure", "Arrival"])
    screenshot(driver, "binder")
    listed = console.run("doc", "list", "The harbour", unlock=False)
    if listed.returncode != 0 or listed.stdout.find("Departure") > listed.stdout.find("Arrival"):
        failures.append("the CLI does not list the reordered documents: " + listed.stdout + listed.stderr)


def test_outline_and_drag(driver, console, failures):
    """A novelist restructures in the outline with the keyboard alone: a scene goes into the part above
    it (Alt+Right), gets a new title; in the binder, a scene dragged onto another goes before it."""
    open_new_document(driver, console, "Tides", "Prologue")
    for kind, title in [("chapter", "Part One"), ("scene", "Storm"), ("scene", "Calm")]:
        select_value(driver, "node-kind", kind)
        type_into(driver, "node-title", title)
        driver.find_element(By.ID, "node-title").send_keys(Keys.ENTER)
        until(driver, lambda d: title in d.find_element(By.CLASS_NAME, "binder").text)
    driver.find_element(By.LINK_TEXT, "Outline view").send_keys(Keys.ENTER)
    wait_text(driver, "Tides: outline")
    titles = lambda: [i.get_attribute("value") for i in driver.find_elements(By.CSS_SELECTOR, ".outline input")]
    depths = lambda: [i.get_attribute("class") for i in driver.find_elements(By.CSS_SELECTOR, ".outline input")]
    storm = driver.find_element(By.CSS_SELECTOR, ".outline input[value='Storm']")
    storm.send_keys(Keys.ALT, Keys.ARROW_RIGHT)          # into Part One, the folder above it
    until(driver, lambda d: depths()[titles().index("Storm")] == "depth-1")
    focused = driver.switch_to.active_element
    if focused.get_attribute("value") != "Storm":
        failures.append(f"the focus did not stay on the moved item: {focused.get_attribute('value')!r}")
    focused.send_keys(Keys.CONTROL, "a")                 # a modifier stays down until the sequence ends
    focused.send_keys(Keys.BACKSPACE, "Storm at sea", Keys.TAB)   # rename, committed on leaving the field
    until(driver, lambda d: "Storm at sea" in console.run("doc", "list", "Tides", unlock=False).stdout)
    check_accessibility(driver, "outline", failures)
    screenshot(driver, "outline")
    # In the binder, Calm is dragged onto Prologue: it goes before it.
    driver.find_element(By.LINK_TEXT, "Back to the binder").send_keys(Keys.ENTER)
    wait_text(driver, "Binder")
    driver.execute_script("""
        const item = (title) => [...document.querySelectorAll('.binder li')].find((li) => li.firstElementChild.textContent === title);
        const data = new DataTransfer();
        item('Calm').dispatchEvent(new DragEvent('dragstart', { bubbles: true, dataTransfer: data }));
        item('Prologue').dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: data }));
        item('Prologue').dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: data }));
    """)
    until(driver, lambda d: [a.text for a in d.find_elements(By.CSS_SELECTOR, ".binder > div > ul > li > a")][:2] == ["Calm", "Prologue"])
    listed = console.run("doc", "list", "Tides", unlock=False).stdout
    if not (listed.find("Calm") < listed.find("Prologue") and "Storm at sea" in listed):
        failures.append("the CLI does not show the outline's and the drag's changes: " + listed)


def test_soap_note_in_a_session(driver, console, failures):
    """A clinician creates an intake project from the SOAP template with a purpose, sees the note,
    ends the session, and finds the project locked."""
    sign_in(driver, console)
    type_into(driver, "new-name", "Intake")
    select_value(driver, "new-register", "healthcare")
    select_value(driver, "new-template", "soap-note")
    type_into(driver, "new-purpose", "write up today's session")
    press(driver.find_element(By.XPATH, "//button[text()='Create']"))
    until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".editor textarea")) >= 2)
    # The session's time left is on the page and counts down (the idle limit is 5 minutes).
    countdown = lambda: driver.find_element(By.CSS_SELECTOR, ".session-bar .countdown").text
    first = countdown()
    if not re.match(r"Session: [0-5]:\d\d left if idle", first):
        failures.append(f"no session countdown on the privileged project: {first!r}")
    until(driver, lambda d: countdown() != first)
    screenshot(driver, "soap-note")
    check_accessibility(driver, "soap note", failures)
    driver.get(console.origin + "/#/sessions")
    wait_text(driver, "End session")
    check_accessibility(driver, "sessions", failures)
    press(driver.find_element(By.XPATH, "//button[text()='End session']"))
    wait_text(driver, "No session is open")
    driver.get(console.origin + "/#/projects")
    wait_text(driver, "(locked)")
    press(driver.find_element(By.PARTIAL_LINK_TEXT, "(locked)"))
    wait_text(driver, "This project is privileged")
    screenshot(driver, "locked")
    if "Intake" in driver.find_element(By.TAG_NAME, "main").text:
        failures.append("a locked privileged project shows its name")


def test_history_branches_and_search(driver, console, failures):
    """Take a titled snapshot, change the text, compare the version with now (words struck and
    added), restore it; a suggestion made by the CLI as a branch is shown side by side, adopted
    (the text changes) and reverted (the text is back); search finds the document."""
    open_new_document(driver, console, "The harbour", "Arrival")
    press(driver.find_element(By.XPATH, "//button[text()='Add a paragraph']"))
    driver.switch_to.active_element.send_keys("The boat came in at dawn.")
    until(driver, lambda d: "Sealed (" in d.find_element(By.CLASS_NAME, "save-state").text)
    type_into(driver, "snapshot-title", "First draft")
    press(driver.find_element(By.XPATH, "//button[text()='Take a snapshot']"))
    wait_text(driver, "“First draft”")
    area = driver.find_element(By.CSS_SELECTOR, ".editor textarea")
    area.send_keys(Keys.END, " Gulls followed it.")
    until(driver, lambda d: "Sealed (" in d.find_element(By.CLASS_NAME, "save-state").text)
    press(driver.find_element(By.CSS_SELECTOR, "button[aria-label^='Compare version 1']"))
    until(driver, lambda d: "Gulls" in " ".join(i.text for i in d.find_elements(By.CSS_SELECTOR, ".diff ins")))
    screenshot(driver, "history")
    check_accessibility(driver, "history", failures)
    press(driver.find_element(By.CSS_SELECTOR, "button[aria-label^='Restore version 1']"))
    until(driver, lambda d: [t.get_attribute("value") for t in d.find_elements(By.CSS_SELECTOR, ".editor textarea")] == ["The boat came in at dawn."])
    made = subprocess.run([console.vaultctl, "branch", "create", "The harbour", "Arrival", "-", "--kind", "ai-suggestion", "--by", "line editor",
                           "--vault", console.vault, "--passphrase-file", console.passphrase], input="The boat slid in at dawn.\n", capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        failures.append("vaultctl branch create failed: " + made.stderr)
        return
    driver.refresh()
    button = until(driver, lambda d: d.find_element(By.CSS_SELECTOR, "button[aria-label^='Show the AI suggestion']"))
    press(button)
    wait_text(driver, "Proposed")
    screenshot(driver, "branch")
    check_accessibility(driver, "branch", failures)
    press(driver.find_element(By.XPATH, "//button[text()='Adopt']"))
    until(driver, lambda d: [t.get_attribute("value") for t in d.find_elements(By.CSS_SELECTOR, ".editor textarea")] == ["The boat slid in at dawn."])
    press(until(driver, lambda d: d.find_element(By.CSS_SELECTOR, "button[aria-label^='Show the AI suggestion']")))
    press(until(driver, lambda d: d.find_element(By.XPATH, "//button[text()='Revert']")))
    until(driver, lambda d: [t.get_attribute("value") for t in d.find_elements(By.CSS_SELECTOR, ".editor textarea")] == ["The boat came in at dawn."])
    type_into(driver, "search-query", "dawn")
    driver.find_element(By.ID, "search-query").send_keys(Keys.ENTER)
    wait_text(driver, "1 found")


def test_live_change_from_the_cli(driver, console, failures):
    """A document open in the console shows a change the CLI makes without a reload; while the
    writer is in the editor the change waits, and it appears when they leave it."""
    open_new_document(driver, console, "The harbour", "Arrival")
    driver.find_element(By.ID, "search-query").send_keys("")            # focus out of the editor, by keyboard

    def cli_write(text):
        made = subprocess.run([console.vaultctl, "doc", "write", "The harbour", "Arrival", "-", "--vault", console.vault,
                               "--passphrase-file", console.passphrase], input=text, capture_output=True, text=True, timeout=120)
        if made.returncode != 0:
            raise RuntimeError("vaultctl doc write failed: " + made.stderr)

    def texts(d):
        return [t.get_attribute("value") for t in d.find_elements(By.CSS_SELECTOR, ".editor textarea")]

    cli_write("Written from the terminal.\n")
    until(driver, lambda d: texts(d) == ["Written from the terminal."])
    driver.find_element(By.CSS_SELECTOR, ".editor textarea").send_keys("")  # the writer is in the editor
    cli_write("Changed again from the terminal.\n")
    time.sleep(2.5)
    if texts(driver) != ["Written from the terminal."]:
        failures.append("a change from elsewhere replaced the text while the writer was in the editor")
    driver.find_element(By.ID, "search-query").send_keys("")              # leaves the editor
    until(driver, lambda d: texts(d) == ["Changed again from the terminal."])
    screenshot(driver, "live")


def test_audit_verify(driver, console, failures):
    sign_in(driver, console)
    driver.get(console.origin + "/#/audit")
    wait_text(driver, "Verify the whole log")
    press(driver.find_element(By.XPATH, "//button[text()='Verify the whole log']"))
    wait_text(driver, "Verified:")
    # An entry's inclusion proof, checked by the page's own SHA-256; the same checker refuses a proof
    # moved to another index or with another root.
    press(driver.find_element(By.CSS_SELECTOR, "button[aria-label^='Check the inclusion proof']"))
    wait_text(driver, "(hashed here)")
    refused = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const { verifyInclusion } = await import('/merkle.js');
          const proof = await (await fetch('/api/audit/entries/1/proof')).json();
          const flipped = proof.root.startsWith('A') ? 'B' + proof.root.slice(1) : 'A' + proof.root.slice(1);
          return [await verifyInclusion(proof), await verifyInclusion({ ...proof, index: 0 }), await verifyInclusion({ ...proof, root: flipped })];
        })().then(done, (e) => done(String(e)));
    """)
    if refused != [True, False, False]:
        failures.append(f"merkle.js: expected [true, false, false] (good, moved, wrong root), got {refused}")
    exported = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(document.getElementById('audit-export').href).then((r) => r.text()).then((t) => done(t.split('\\n')[0]), (e) => done(String(e)));
    """)
    if exported != "vaultctl audit export v1":
        failures.append(f"the export link did not download an audit export: first line {exported!r}")
    if not driver.find_element(By.ID, "audit-key").text.strip():
        failures.append("the audit page shows no genesis key for the auditor")
    screenshot(driver, "audit")
    check_accessibility(driver, "audit", failures)


def pair_laptop(driver, console, failures):
    """From the devices page, pairs a new vault 'laptop' as the owner's own device with the real
    'vaultctl pair join'; answers the laptop's vault folder, or None (with the failure noted)."""
    driver.find_element(By.LINK_TEXT, "Devices").send_keys(Keys.ENTER)
    wait_text(driver, "Pair a new device")
    driver.find_element(By.CSS_SELECTOR, "input[name='trust'][value='mine']").send_keys(Keys.SPACE)   # my own laptop
    type_into(driver, "pair-address", "127.0.0.1:0")
    driver.find_element(By.ID, "pair-address").send_keys(Keys.ENTER)
    until(driver, lambda d: d.find_element(By.ID, "pairing-code").text.strip())
    code = driver.find_element(By.ID, "pairing-code").text
    address = re.search(r"Waiting on (\S+);", driver.find_element(By.TAG_NAME, "main").text).group(1)
    check_accessibility(driver, "devices (waiting)", failures)
    screenshot(driver, "devices-pairing")
    laptop = os.path.join(console.root, "laptop")
    subprocess.run([console.vaultctl, "init", "--vault", laptop, "--passphrase-file", console.passphrase, "--kdf-memory-mib", "19",
                    "--kdf-iterations", "2", "--kdf-parallelism", "1"], check=True, capture_output=True, timeout=120)
    joined = subprocess.run([console.vaultctl, "pair", "join", "--address", address, "--code-file", "-", "--name", "laptop", "--trust", "mine",
                             "--vault", laptop, "--passphrase-file", console.passphrase], input=code + "\n",
                            capture_output=True, text=True, timeout=120)
    if joined.returncode != 0:
        failures.append("vaultctl pair join against the console failed: " + joined.stdout + joined.stderr)
        return None
    wait_text(driver, "Paired with laptop (My own device)")
    until(driver, lambda d: "laptop" in [td.text for td in d.find_elements(By.CSS_SELECTOR, "main table td")])
    return laptop


def test_pair_a_device(driver, console, failures):
    """The owner pairs a laptop from the devices page: the page shows a code, the laptop's real
    'vaultctl pair join' types it, the page says it paired and lists the laptop; then forgets it."""
    sign_in(driver, console)
    if pair_laptop(driver, console, failures) is None:
        return
    screenshot(driver, "devices")
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Forget laptop']").send_keys(Keys.ENTER)
    driver.switch_to.alert.accept()
    wait_text(driver, "No device is paired yet.")
    if "peer.revoke" not in console.run("audit", "log", "--json", unlock=False).stdout:
        failures.append("forgetting the laptop is not in the audit log")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


CONSOLE_CHANNEL_PORT = free_port()


def test_sync_with_the_laptop(driver, console, failures):
    """Two real daemons: the console's (whose channel listens on loopback) and a paired laptop's.
    The laptop writes a project; 'Sync now' on the devices page brings it in and the project opens
    in the console; then the laptop edits and syncs from its side: while the document is open in the
    editor the daemon holds the change (the page told it the editor is open, even with the writer's
    focus elsewhere), and once the editor leaves the document the new words are there."""
    sign_in(driver, console)
    laptop = pair_laptop(driver, console, failures)
    if laptop is None:
        return
    this = driver.find_element(By.ID, "this-fingerprint").text
    laptop_port = free_port()
    log = open(os.path.join(console.root, "laptop.log"), "w+")
    daemon = subprocess.Popen([console.vaultctl, "serve", "--vault", laptop, "--passphrase-file", console.passphrase, "--address", f"127.0.0.1:{laptop_port}"],
                              stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        def on_laptop(*arguments, text=None):
            done = subprocess.run([console.vaultctl, *arguments, "--vault", laptop, "--passphrase-file", console.passphrase],
                                  input=text, capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                raise RuntimeError(f"vaultctl {' '.join(arguments)} on the laptop failed: {done.stdout}{done.stderr}")
            return done.stdout
        deadline = time.time() + 30
        while "listening" not in open(log.name).read() and time.time() < deadline:
            time.sleep(0.2)
        on_laptop("project", "create", "Crossing", "--register", "fiction")
        on_laptop("doc", "add", "Crossing", "Departure")
        on_laptop("doc", "write", "Crossing", "Departure", "-", text="Written on the laptop, on the train.\n")
        type_into(driver, "sync-address", f"127.0.0.1:{laptop_port}")
        driver.find_element(By.ID, "sync-address").send_keys(Keys.ENTER)
        wait_text(driver, "Synced 1 project(s)")
        until(driver, lambda d: "Last synced 2" in d.find_element(By.TAG_NAME, "main").text)
        screenshot(driver, "devices-sync")
        check_accessibility(driver, "devices (synced)", failures)
        driver.find_element(By.LINK_TEXT, "Projects").send_keys(Keys.ENTER)
        press(until(driver, lambda d: d.find_element(By.LINK_TEXT, "Crossing")))
        press(until(driver, lambda d: d.find_element(By.LINK_TEXT, "Departure")))
        texts = lambda d: [t.get_attribute("value") for t in d.find_elements(By.CSS_SELECTOR, ".editor textarea")]
        until(driver, lambda d: texts(d) == ["Written on the laptop, on the train."])
        driver.find_element(By.ID, "search-query").send_keys("")      # the writer is not in the editor
        on_laptop("doc", "write", "Crossing", "Departure", "-", text="Rewritten on the laptop as the train came in.\n")
        on_laptop("sync", "now", "--peer", this, "--address", f"127.0.0.1:{CONSOLE_CHANNEL_PORT}")
        time.sleep(3)
        if texts(driver) != ["Written on the laptop, on the train."]:
            failures.append("a synced change reached the document while its editor was open (the daemon should hold it)")
        driver.find_element(By.LINK_TEXT, "Projects").send_keys(Keys.ENTER)   # the editor leaves the document
        press(until(driver, lambda d: d.find_element(By.LINK_TEXT, "Crossing")))
        press(until(driver, lambda d: d.find_element(By.LINK_TEXT, "Departure")))
        until(driver, lambda d: texts(d) == ["Rewritten on the laptop as the train came in."])
        screenshot(driver, "live-from-laptop")
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)


test_sync_with_the_laptop.console_arguments = ["--address", f"127.0.0.1:{CONSOLE_CHANNEL_PORT}"]


# --- security --------------------------------------------------------------------------------

def test_outside_resource_is_blocked(driver, console, failures):
    """A page that tries to load an outside resource is refused by the Content-Security-Policy."""
    sign_in(driver, console)
    blocked = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        document.addEventListener('securitypolicyviolation', (e) => done(e.violatedDirective + ' ' + e.blockedURI));
        const image = document.createElement('img');
        image.src = 'http://203.0.113.9/pixel.png';
        document.body.append(image);
        setTimeout(() => done('not blocked'), 5000);
    """)
    if not blocked.startswith("img-src"):
        failures.append("an outside image was not blocked by the CSP: " + blocked)
    inline = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        document.addEventListener('securitypolicyviolation', (e) => done(e.violatedDirective));
        const script = document.createElement('script');
        script.textContent = 'window.ran = true';
        document.body.append(script);
        setTimeout(() => done(window.ran ? 'ran' : 'not reported'), 3000);
    """)
    if not inline.startswith("script-src"):
        failures.append("an inline script was not refused: " + inline)


def raw_request(console, method, path, headers, body=None):
    request = urllib.request.Request(console.origin + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_forged_requests_are_refused(driver, console, failures):
    """Host: evil.example, a cross-origin POST, a missing CSRF token and a cookie from before a
    restart are refused, each for its reason."""
    sign_in(driver, console)
    cookie = driver.get_cookie("vault_console")["value"]
    if driver.get_cookie("vault_console").get("httpOnly") is not True:
        failures.append("the session cookie is not HttpOnly")
    if driver.execute_script("return document.cookie").find("vault_console") >= 0:
        failures.append("the page can read the session cookie")
    session = {"Cookie": "vault_console=" + cookie}
    cases = [
        ("GET", "/api/projects", {**session, "Host": "evil.example"}, None, 403, "forbiddenOrigin"),
        ("POST", "/api/projects", {**session, "Origin": "http://evil.example", "Content-Type": "application/json"},
         b'{"name":"x","register":"fiction"}', 403, "forbiddenOrigin"),
        ("POST", "/api/projects", {**session, "Origin": console.origin, "Content-Type": "application/json"},
         b'{"name":"x","register":"fiction"}', 403, "missingCSRFToken"),
    ]
    for method, path, headers, body, status, code in cases:
        got, payload = raw_request(console, method, path, headers, body)
        reason = json.loads(payload or b"{}").get("error")
        if got != status or reason != code:
            failures.append(f"{method} {path} with {headers}: {got} {reason}, expected {status} {code}")
    # The browser's own cross-origin attempt: a page on another origin posting to the console.
    console.daemon.terminate()
    console.daemon.wait(timeout=30)
    console.log.truncate(0)
    port = console.origin.rsplit(":", 1)[1]
    console.daemon = subprocess.Popen([console.vaultctl, "serve", "--console", "--console-port", port, "--vault", console.vault,
                                       "--passphrase-file", console.passphrase], stdout=console.log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL)
    console.launch = console.wait_for_launch_url()
    got, payload = raw_request(console, "GET", "/api/projects", session)
    if got != 401 or json.loads(payload).get("error") != "unauthenticated":
        failures.append(f"a cookie from before the restart was not refused: {got}")



def test_assistant_lane_on_the_real_model(driver, console, failures):
    """With the real local model (SmolLM2 behind llama.cpp's server, started by scripts/model-server):
    choose a lane on a document with the keyboard, see the egress decision before anything is sent,
    send, and find the answer as an AI-suggestion branch beside its base (or, if the small model's
    answer fails the output contract, told so with no branch made); the document is unchanged until
    a person adopts."""
    # A provider's URL is the server's base; the OpenAI-compatible path (/v1/chat/completions) is the provider's.
    url = re.sub(r"/v1/?$", "", os.environ["MODEL_SERVER_URL"])
    model = os.environ.get("MODEL_SERVER_MODEL", "smollm2-135m-instruct")
    added = console.run("ai", "providers", "add", "smollm", "--url", url, "--model", model, "--local")
    if added.returncode != 0:
        failures.append("vaultctl ai providers add failed: " + added.stderr)
        return
    open_new_document(driver, console, "The harbour", "Arrival")
    press(driver.find_element(By.XPATH, "//button[text()='Add a paragraph']"))
    driver.switch_to.active_element.send_keys("The ferry came in late, and the harbour master counted the passengers twice.")
    until(driver, lambda d: "Sealed (" in d.find_element(By.CLASS_NAME, "save-state").text)
    lane = driver.find_element(By.ID, "assistant-lane")
    lane.send_keys("")                                  # focus, by keyboard; coauthor.draft is the first lane
    if lane.get_attribute("value") != "coauthor.draft":
        failures.append("the first lane offered is not coauthor.draft: " + lane.get_attribute("value"))
    type_into(driver, "assistant-instruction", "Two sentences about the night.")
    press(driver.find_element(By.XPATH, "//button[text()='Check what would be sent']"))
    wait_text(driver, "Nothing has been sent yet.")
    decision = driver.find_element(By.CSS_SELECTOR, ".decision").text
    if "To model:smollm/" not in decision or "would be sent as it is" not in decision:
        failures.append("the check did not show the decision for the local model: " + decision)
    screenshot(driver, "assistant-check")
    check_accessibility(driver, "assistant-check", failures)
    press(driver.switch_to.active_element)              # Send has the focus
    def ended(d):
        text = d.find_element(By.CSS_SELECTOR, ".assistant").text
        if "ready as a branch" in text: return "ready"
        if "failed the output contract" in text: return "failed"
        errors = d.find_elements(By.CSS_SELECTOR, ".assistant .field-error")
        return "error: " + errors[0].text if errors else False
    outcome = WebDriverWait(driver, 480, ignored_exceptions=(StaleElementReferenceException,)).until(ended)
    if outcome.startswith("error"):
        failures.append("the run failed: " + outcome)
        return
    logged = json.loads(console.run("ai", "log", "--json").stdout or "[]")
    if len(logged) != 1 or logged[0]["lane"] != "coauthor.draft" or logged[0]["provider"] != f"model:smollm/{model}":
        failures.append(f"the AI log does not hold the one call: {logged}")
    if outcome == "failed":
        print("       (the model's answer failed the output contract; no branch made, as the contract says)")
        return
    wait_text(driver, "Proposed")
    texts = [t.get_attribute("value") for t in driver.find_elements(By.CSS_SELECTOR, ".editor textarea")]
    if texts != ["The ferry came in late, and the harbour master counted the passengers twice."]:
        failures.append("the document changed before the suggestion was adopted")
    screenshot(driver, "assistant-branch")
    press(driver.find_element(By.XPATH, "//button[text()='Adopt']"))
    until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".editor textarea")) > 1)

TESTS = [test_write_a_novel_with_the_keyboard, test_outline_and_drag, test_soap_note_in_a_session, test_history_branches_and_search, test_live_change_from_the_cli,
         test_audit_verify, test_pair_a_device, test_sync_with_the_laptop,
         test_outside_resource_is_blocked, test_forged_requests_are_refused]
# Run by 'make test-model', under scripts/model-server (MODEL_SERVER_URL set): the flows that need the real model.
MODEL_TESTS = [test_assistant_lane_on_the_real_model]


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--model"]):
        print(__doc__, file=sys.stderr)
        return 2
    tests = MODEL_TESTS if sys.argv[2:] == ["--model"] else TESTS
    if os.environ.get("CONSOLE_TESTS"):      # a developer's shortcut: only the named flows
        tests = [test for test in tests if test.__name__ in os.environ["CONSOLE_TESTS"].split(",")]
    if tests is MODEL_TESTS and not os.environ.get("MODEL_SERVER_URL"):
        print("console_browser_test: --model needs MODEL_SERVER_URL (run it under scripts/model-server, as make test-model does)", file=sys.stderr)
        return 2
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(tool):
            print(f"console_browser_test: {tool} is missing: run 'make test' or 'apt-get install chromium chromium-driver'",
                  file=sys.stderr)
            return 2
    os.environ["SE_OFFLINE"] = "true"  # selenium must not try to fetch a driver
    folder = os.environ.get("SCREENSHOT_DIR", ".build/console-screenshots")
    if tests is TESTS:
        shutil.rmtree(folder, ignore_errors=True)  # this run's screenshots only (the model flow adds its own)
    failed = 0
    for test in tests:
        console = Console(os.path.abspath(sys.argv[1]), getattr(test, "console_arguments", ()))
        driver = browser()
        failures = []
        started = time.time()
        try:
            test(driver, console, failures)
        except Exception:
            failures.append(traceback.format_exc())
            screenshot(driver, "failed-" + test.__name__)
        finally:
            driver.quit()
            console.stop()
        status = "ok" if not failures else "FAILED"
        print(f"{status:6} {test.__name__} ({time.time() - started:.1f} s)")
        for failure in failures:
            print("       " + failure.replace("\n", "\n       "))
        failed += bool(failures)
    print(f"console_browser_test: {len(tests) - failed} of {len(tests)} passed; screenshots in "
          + os.environ.get("SCREENSHOT_DIR", ".build/console-screenshots"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
