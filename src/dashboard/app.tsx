import { useEffect, useRef, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, whenSessionLost } from './api.js';
import { setPageTitle } from './page-title.js';
import { clearSession, sessionUser } from './session.js';
import { ApiReferenceView } from './views/api-reference.js';
import { AuditView } from './views/audit.js';
import { DomainView } from './views/domain.js';
import { DomainsView } from './views/domains.js';
import { EdgesView } from './views/edges.js';
import { GitopsView } from './views/gitops.js';
import { Login } from './views/login.js';
import { OverviewView } from './views/overview.js';
import { SettingsView } from './views/settings.js';

const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/domains', label: 'Domains' },
  { href: '/edges', label: 'Edges' },
  { href: '/gitops', label: 'GitOps' },
  { href: '/settings', label: 'Settings' },
  { href: '/audit', label: 'Audit log' },
  { href: '/api-reference', label: 'API reference' },
];

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing lives at this address. <a href="/">Back to the overview</a>.
      </p>
    </section>
  );
}

// After a move to another view: the page's title names it, and the keyboard focus starts at its content.
function FollowRoute() {
  const { path } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    const item = NAV.find((entry) => (entry.href === '/' ? path === '/' : path.startsWith(entry.href)));
    setPageTitle(item?.label ?? 'Not found');
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [path]);
  return null;
}

function MainNav() {
  const { path } = useLocation();
  const current = (href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));
  return (
    <nav aria-label="Main">
      {NAV.map((item) => (
        <a key={item.href} href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
          {item.label}
        </a>
      ))}
    </nav>
  );
}

function Shell({ user, onLogout }: { user: string; onLogout: () => void }) {
  return (
    <LocationProvider>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">CDN</span>
        <MainNav />
        <FollowRoute />
        <span class="user">{user}</span>
        <button type="button" onClick={onLogout}>
          Log out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Router>
          <Route path="/" component={OverviewView} />
          <Route path="/domains" component={DomainsView} />
          <Route path="/domains/:id" component={DomainView} />
          <Route path="/edges" component={EdgesView} />
          <Route path="/gitops" component={GitopsView} />
          <Route path="/settings" component={SettingsView} />
          <Route path="/audit" component={AuditView} />
          <Route path="/api-reference" component={ApiReferenceView} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
}

/** The login page until there is an admin session, then the dashboard; a lost session returns to login. */
export function App() {
  const [user, setUser] = useState(sessionUser());
  const [expired, setExpired] = useState(false);
  useEffect(() => {
    whenSessionLost(() => {
      setExpired(true);
      setUser(undefined);
    });
  }, []);
  async function logout() {
    await api('POST', '/api/v1/admin/logout').catch(() => undefined);
    clearSession();
    setExpired(false);
    setUser(undefined);
  }
  if (!user) return <Login expired={expired} onLogin={() => setUser(sessionUser())} />;
  return <Shell user={user} onLogout={logout} />;
}
