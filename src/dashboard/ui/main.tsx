import { render, type JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ControlClient, ControlError, TokenRequired } from './control-client.js';
import type { WorkspaceListing } from './contract.js';
import { ClockView } from './clock-view.js';
import { CoverageView } from './coverage-view.js';
import { LimitsView } from './limits-view.js';
import { RequestsView } from './requests-view.js';
import { ScenariosView } from './scenarios-view.js';
import { StateView } from './state-view.js';
import { slugOf, VIEWS, viewOfHash, type ViewName } from './views.js';
import { WebhooksView } from './webhooks-view.js';
import { WorkspaceSwitcher } from './workspace-switcher.js';

/** What every view is given: the control client, what to start afresh on (the workspace and the token), and how to ask for the token. */
interface ViewProps {
  client: ControlClient;
  generation: string;
  onTokenRequired: () => void;
}

/** The view behind each navigation link. */
const VIEW_COMPONENTS: Record<ViewName, (props: ViewProps) => JSX.Element> = {
  Requests: RequestsView,
  Webhooks: WebhooksView,
  Clock: ClockView,
  Scenarios: ScenariosView,
  Limits: LimitsView,
  State: StateView,
  Coverage: CoverageView,
};

/*
 * The dashboard's shell (docs/dashboard.md): a header with the workspace switcher, the
 * navigation, and the view the location hash names. Views are reached by hash, so the
 * server answers one page and a reload keeps the view.
 */

const WORKSPACE_KEY = 'social-gateway-mock.workspace';

function TokenForm({ refused, onToken }: { refused: boolean; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <section aria-labelledby="token-heading">
      <h2 id="token-heading">Control token</h2>
      <p>This server was started with --control-token. Enter it once: this tab keeps it and sends it with each control call, in a header.</p>
      {refused && <p role="alert">The server refused that token.</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (token !== '') onToken(token);
        }}
      >
        <label>
          Control token{' '}
          <input type="password" autocomplete="off" value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        </label>{' '}
        <button type="submit">Unlock</button>
      </form>
    </section>
  );
}

function App() {
  const client = useMemo(() => new ControlClient(), []);
  const [view, setView] = useState<ViewName>(viewOfHash(location.hash));
  const [needsToken, setNeedsToken] = useState<'ask' | 'refused' | null>(null);
  const [workspaces, setWorkspaces] = useState<WorkspaceListing[]>([]);
  const [current, setCurrent] = useState<string | null>(sessionStorage.getItem(WORKSPACE_KEY));
  const [generation, setGeneration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  client.workspaceId = current;

  useEffect(() => {
    const onHash = () => setView(viewOfHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.title = `${view} · Dashboard · social-gateway-mock`;
  }, [view]);

  // Asked once: a token the server then refuses is asked for again, saying so.
  const tokenGiven = useRef(false);
  const onTokenRequired = useCallback(() => setNeedsToken(tokenGiven.current ? 'refused' : 'ask'), []);

  const onFailure = useCallback(
    (failure: unknown) => {
      if (failure instanceof TokenRequired) return onTokenRequired();
      setError(failure instanceof ControlError ? `${failure.code}: ${failure.message}` : String(failure));
    },
    [onTokenRequired],
  );

  const loadWorkspaces = useCallback(async () => {
    try {
      const list = await client.call('listWorkspaces');
      setWorkspaces(list.data);
      setNeedsToken(null);
      // A workspace deleted or evicted since this tab chose it: back to the default one.
      if (current !== null && !list.data.some((workspace) => workspace.workspaceId === current)) select(null);
    } catch (failure) {
      onFailure(failure);
    }
    // select is stable for what it reads here.
  }, [client, current, onFailure]);

  useEffect(() => {
    void loadWorkspaces();
  }, [loadWorkspaces]);

  function select(workspaceId: string | null) {
    if (workspaceId === null) sessionStorage.removeItem(WORKSPACE_KEY);
    else sessionStorage.setItem(WORKSPACE_KEY, workspaceId);
    client.workspaceId = workspaceId;
    setCurrent(workspaceId);
    setGeneration((count) => count + 1);
  }

  const View = VIEW_COMPONENTS[view];
  return (
    <>
      <header>
        <h1>social-gateway-mock</h1>
        {needsToken === null && (
          <WorkspaceSwitcher
            client={client}
            workspaces={workspaces}
            current={current}
            onSelect={select}
            onChanged={(selectId) => {
              if (selectId !== undefined) select(selectId);
              else setGeneration((count) => count + 1);
              void loadWorkspaces();
            }}
            onFailure={onFailure}
          />
        )}
      </header>
      <nav aria-label="Views">
        <ul>
          {VIEWS.map((name) => (
            <li key={name}>
              <a href={`#/${slugOf(name)}`} aria-current={name === view ? 'page' : undefined}>
                {name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        {error && (
          <p role="alert">
            {error}{' '}
            <button type="button" onClick={() => setError(null)}>
              Dismiss
            </button>
          </p>
        )}
        {needsToken !== null ? (
          <TokenForm
            refused={needsToken === 'refused'}
            onToken={(token) => {
              client.setToken(token);
              tokenGiven.current = true;
              setNeedsToken(null);
              setGeneration((count) => count + 1);
              void loadWorkspaces();
            }}
          />
        ) : (
          <View client={client} generation={`${current ?? 'default'}:${generation}`} onTokenRequired={onTokenRequired} />
        )}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
