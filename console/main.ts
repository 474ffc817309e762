import { api, configureApi } from './api';
import {
  configureProbe,
  onReachability,
  type ReachabilityView,
  reportSignedIn,
  reportSignedOut,
  retryNow,
} from './connection';
import {
  askOtherTabs,
  type ConsoleSettings,
  currentToken,
  finishCognitoSignIn,
  loadSettings,
  signInLocally,
  signOut,
  signOutEverywhere,
  startCognitoSignIn,
  startHandoff,
} from './auth';
import { chooseZone, knowBusinessZones, ZONE_CHOICES, zoneChoice, zoneLabel, type ZoneChoice } from './time';
import { errorBox, h, replace, when } from './dom';
import { reportView } from './views/report';
import { badgesView, healthView, quarantineView } from './views/operations';
import { statementsView } from './views/statements';
import { storyView } from './views/story';
import { transactionsView } from './views/transactions';
import { approvalsView, auditView } from './views/accountability';
import { whoAmI } from './me';
import { destinationsView } from './views/destinations';

const NAV: Array<[string, string]> = [
  ['#/transactions', 'Transactions'],
  ['#/report', 'Reconciliation'],
  ['#/health', 'Callback health'],
  ['#/quarantine', 'Quarantine'],
  ['#/badges', 'Badges'],
  ['#/statements', 'Statements'],
  ['#/approvals', 'Approvals'],
  ['#/audit', 'Audit log'],
  ['#/destinations', 'Destinations'],
];

let settings: ConsoleSettings = { mode: 'local' };
let leave: () => void = () => undefined;

function signInPage(main: HTMLElement, message?: string): void {
  if (settings.mode === 'cognito') {
    const cognito = settings;
    replace(
      main,
      h('h1', {}, 'Sign in'),
      message ? h('p', { class: 'error' }, message) : null,
      h('p', {}, 'The console signs in with the relay’s Cognito user pool.'),
      h('button', { onclick: () => void startCognitoSignIn(cognito) }, 'Sign in'),
    );
    return;
  }
  const form = h(
    'form',
    { class: 'signin', 'data-testid': 'signin' },
    h('h1', {}, 'Sign in'),
    message ? h('p', { class: 'error', role: 'alert' }, message) : null,
    h(
      'p',
      {},
      'The management bearer token of this relay (',
      h('code', {}, 'management.bearerToken'),
      '; the npm start banner shows it for the demo config). It is kept in this tab, and handed to the console’s new tabs while one is open.',
    ),
    h('input', {
      type: 'password',
      name: 'token',
      'aria-label': 'bearer token',
      autocomplete: 'off',
      required: true,
      size: 40,
    }),
    h(
      'p',
      {},
      'Your name: recorded on every action you take. The shared token names nobody, so with it an action needs your name; a named token names you already.',
    ),
    h('input', {
      type: 'text',
      name: 'actor',
      'aria-label': 'your name',
      autocomplete: 'name',
      maxlength: 64,
      size: 24,
    }),
    ' ',
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const typed = new FormData(form);
    signInLocally(String(typed.get('token') ?? ''), String(typed.get('actor') ?? ''));
    reportSignedIn();
    location.hash = '#/transactions';
    route();
  });
  replace(main, form);
}

function route(): void {
  leave();
  leave = () => undefined;
  // Each view draws into a container of its own. An answer that comes after its view was left (a story
  // still loading when the person moved on, or was signed out by another tab) then draws into an element
  // no longer on the page, never over the view that replaced it.
  const main = h('div', { class: 'view' });
  document.getElementById('main')!.replaceChildren(main);
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a'))
    a.classList.toggle('active', path.startsWith(a.getAttribute('href')!.slice(1)));
  if (!currentToken() || path === '/signin') {
    // Signed out: nobody is named beside the sign-out link any more.
    if (!currentToken()) document.getElementById('who')?.replaceChildren();
    signInPage(main);
    // A link opened in a new tab: another signed-in tab may hand its sign-in over (auth.ts).
    if (path !== '/signin') askOtherTabs();
    return;
  }
  void showWho();
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'tx' && parts.length === 4) {
    const [provider, account, reference] = parts.slice(1).map(decodeURIComponent) as [string, string, string];
    leave = storyView(main, { provider, account, reference });
  } else if (parts[0] === 'report') leave = reportView(main, params);
  else if (parts[0] === 'health') leave = healthView(main, params);
  else if (parts[0] === 'quarantine') leave = quarantineView(main, params);
  else if (parts[0] === 'badges') leave = badgesView(main);
  else if (parts[0] === 'statements') leave = statementsView(main, params);
  else if (parts[0] === 'approvals') leave = approvalsView(main, params);
  else if (parts[0] === 'audit') leave = auditView(main, params);
  else if (parts[0] === 'destinations') leave = destinationsView(main);
  else leave = transactionsView(main, params);
}

let countdown: ReturnType<typeof setInterval> | undefined;

/**
 * The banner above every view: the relay not answering (since when, the next try, "Retry now") or the
 * sign-in refused. When the relay answers again the current view is drawn anew: no reload, no stale rows.
 */
function showReachability(view: ReachabilityView, previous: string): void {
  const banner = document.getElementById('banner')!;
  if (countdown) clearInterval(countdown);
  countdown = undefined;
  banner.dataset.state = view.state;
  if (view.state === 'ok') {
    banner.hidden = true;
    banner.replaceChildren();
    if (previous === 'unreachable') route();
    return;
  }
  banner.hidden = false;
  if (view.state === 'signed-out') {
    replace(banner, 'Signed out. Sign in again to carry on. ', h('a', { href: '#/signin' }, 'Sign in'));
    return;
  }
  const next = h('span', {});
  const tick = () => {
    const seconds = Math.max(0, Math.ceil(((view.nextAttemptAt ?? Date.now()) - Date.now()) / 1000));
    next.textContent = seconds > 0 ? `Trying again in ${seconds} s. ` : 'Trying again… ';
  };
  tick();
  countdown = setInterval(tick, 1000);
  replace(
    banner,
    h('strong', {}, 'The relay is not answering'),
    ` since ${when(view.since)}: what you see may be out of date. `,
    next,
    h('button', { type: 'button', class: 'small', onclick: () => void retryNow() }, 'Retry now'),
  );
}

/**
 * Who is signed in, beside the sign-out link; the audit log's link only for admins (it is theirs). The
 * answer also names the business time zones: a view drawn before it came is drawn again in them.
 */
async function showWho(): Promise<void> {
  const line = document.getElementById('who');
  const token = currentToken();
  try {
    const me = await whoAmI(token);
    // Signed out or in as someone else meanwhile: this answer names nobody signed in here now.
    if (token !== currentToken()) return;
    // The name is the operator's own text: shown as every free text is (dom.ts), never reordering the role.
    if (line) replace(line, me.actor.name, ` (${me.actor.role})`);
    if (me.timeZones && knowBusinessZones(me.timeZones)) {
      refreshZoneLabels();
      if (zoneChoice() === 'business') route();
    }
    document
      .querySelector<HTMLElement>('nav a[href="#/audit"]')
      ?.toggleAttribute('hidden', !me.can.administer);
  } catch {
    if (line) line.textContent = '';
  }
}

/** The time-zone choice in the navigation: every time shown follows it (console/time.ts). */
function zoneSelect(): HTMLSelectElement {
  const select = h(
    'select',
    {
      id: 'zone',
      'aria-label': 'Time zone',
      'data-testid': 'zone',
      title: 'Every time shown is in this zone',
    },
    ZONE_CHOICES.map((choice) =>
      h('option', { value: choice, selected: choice === zoneChoice() }, zoneLabel(choice)),
    ),
  );
  select.addEventListener('change', () => {
    chooseZone(select.value as ZoneChoice);
    route();
  });
  return select;
}

function refreshZoneLabels(): void {
  for (const option of document.querySelectorAll<HTMLOptionElement>('#zone option'))
    option.textContent = zoneLabel(option.value as ZoneChoice);
}

async function start(): Promise<void> {
  const main = document.getElementById('main')!;
  settings = await loadSettings();
  configureApi(settings.mode === 'cognito' ? settings.apiUrl : '', () => {
    signOut();
    reportSignedOut();
    signInPage(main, 'The relay refused the token: sign in again.');
  });
  // The retries ask who is signed in: the cheapest call that also says whether the sign-in still holds.
  configureProbe(() => api('/v1/me').then(() => true));
  onReachability(showReachability);
  const nav = document.getElementById('nav')!;
  replace(
    nav,
    NAV.map(([href, title]) => h('a', { href }, title)),
    h('span', { id: 'who', class: 'muted', 'data-testid': 'who' }),
    zoneSelect(),
    h(
      'a',
      {
        href: '#/signin',
        class: 'signout',
        onclick: () => {
          signOutEverywhere();
          reportSignedIn();
        },
      },
      'Sign out',
    ),
  );
  if (settings.mode === 'cognito') {
    try {
      await finishCognitoSignIn(settings);
    } catch (error) {
      replace(main, errorBox(error));
      return;
    }
  }
  startHandoff({
    handedOver: () => {
      reportSignedIn();
      route();
    },
    signedOutElsewhere: () => route(),
  });
  // The business zones before the first view, so that its times are not drawn twice.
  if (currentToken())
    await whoAmI(currentToken()).then(
      (me) => knowBusinessZones(me.timeZones),
      () => undefined,
    );
  refreshZoneLabels();
  window.addEventListener('hashchange', route);
  route();
}

void start();
