import { useEffect, useRef, useState } from 'preact/hooks';
import { ControlError, type ControlClient } from './control-client.js';
import type { ScenarioList } from './contract.js';
import { useLiveRead } from './live-read.js';
import { errorAtOf, hitsText, lineNumbers, matchText, offsetOf, parseRuleSnippet, SAMPLE_RULE, type ScenarioErrorAt } from './scenarios.js';

export interface ScenariosViewProps {
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads its rules afresh. */
  generation: string;
  onTokenRequired: () => void;
}

const RULE_COLUMNS = ['Rule', 'Source', 'Matches', 'Hits', 'Phase', 'Remove'] as const;

const STYLE = `
.scenario-editor { display: flex; border: 1px solid var(--line); max-width: 48rem; font: .9rem/1.4 monospace; }
.scenario-gutter { margin: 0; padding: .3rem .4rem; text-align: right; user-select: none; border-right: 1px solid var(--line); overflow: hidden; }
.scenario-gutter span { display: block; }
.scenario-gutter .error-line { font-weight: 700; text-decoration: underline; outline: 2px solid currentColor; }
.scenario-editor textarea { flex: 1; border: 0; padding: .3rem .4rem; font: inherit; line-height: inherit; resize: vertical; white-space: pre; overflow: auto; }
.scenario-rules { border-collapse: collapse; margin: .5rem 0 1rem; }
.scenario-rules th, .scenario-rules td { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; }
.rule-editor { width: 100%; max-width: 48rem; font: .9rem/1.4 monospace; }
`;

/**
 * Scenarios (issue 20, view 4): load a ready-made scenario or pasted YAML
 * (`POST /__control/scenarios`), a refused one's error shown at the line and column the
 * envelope's details name; the active rules with their hits (`GET /__control/rules`), read
 * again as requests arrive, and a rule added (`POST /__control/rules`) or removed (`DELETE`).
 */
export function ScenariosView({ client, generation, onTokenRequired }: ScenariosViewProps) {
  const rules = useLiveRead(client, 'listRules', { generation, onTokenRequired, readsAgainOn: (name) => name === 'request.recorded' });
  const [available, setAvailable] = useState<ScenarioList | null>(null);
  const [chosen, setChosen] = useState('');
  const [yaml, setYaml] = useState('');
  const [yamlError, setYamlError] = useState<{ message: string; at: ScenarioErrorAt | null } | null>(null);
  const [loaded, setLoaded] = useState<string | null>(null);
  const [snippet, setSnippet] = useState(SAMPLE_RULE);
  const [ruleError, setRuleError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editor = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLPreElement>(null);

  useEffect(() => {
    setAvailable(null);
    client
      .call('listScenarios')
      .then((list) => {
        setAvailable(list);
        setLoaded(list.loaded?.name ?? null);
        setChosen((name) => name || (list.available[0]?.name ?? ''));
      })
      .catch(rules.fail);
  }, [client, generation]);

  async function act(run: () => Promise<void>, onError: (failure: unknown) => void) {
    setBusy(true);
    rules.clearError();
    try {
      await run();
    } catch (failure) {
      onError(failure);
    } finally {
      setBusy(false);
    }
  }

  function load(body: { name: string } | { yaml: string }) {
    return act(
      async () => {
        setYamlError(null);
        const answer = await client.call('loadScenario', { body });
        setLoaded(answer.scenario.name);
        rules.refresh();
      },
      (failure) => {
        if (!(failure instanceof ControlError)) return rules.fail(failure);
        // A ready-made scenario's error names its own file: shown as a message, not in the editor.
        setYamlError({ message: failure.message, at: 'yaml' in body ? errorAtOf(failure.details) : null });
      },
    );
  }

  function goToError(at: ScenarioErrorAt) {
    const textarea = editor.current;
    if (!textarea) return;
    const offset = offsetOf(yaml, at);
    textarea.focus();
    textarea.setSelectionRange(offset, offset);
  }

  function addRule() {
    const parsed = parseRuleSnippet(snippet);
    if ('problem' in parsed) return setRuleError(parsed.problem);
    return act(
      async () => {
        setRuleError(null);
        rules.show({ data: [await client.call('addRule', { body: parsed.rule }), ...(rules.data?.data ?? [])] });
        rules.refresh();
      },
      (failure) => (failure instanceof ControlError ? setRuleError(failure.message) : rules.fail(failure)),
    );
  }

  function removeRule(id: string) {
    return act(async () => {
      await client.call('removeRule', { params: { id } });
      rules.show({ data: (rules.data?.data ?? []).filter((rule) => rule.id !== id) });
      rules.refresh();
    }, rules.fail);
  }

  const errorAt = yamlError?.at ?? null;
  return (
    <section aria-labelledby="view-heading" style={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
      <style>{STYLE}</style>
      <h2 id="view-heading">Scenarios</h2>
      <p role="status" class="notice" data-connection={rules.connection}>
        {rules.connection === 'live' ? 'Live' : rules.connection === 'connecting' ? 'Connecting…' : 'Disconnected'} · loaded scenario: <span class="scenario-loaded">{loaded ?? 'none'}</span>
      </p>
      {rules.error && <p role="alert">{rules.error}</p>}

      <h3>Load a scenario</h3>
      <p>Loading starts the workspace afresh from the scenario: its clock, fixtures, rules and timeline. Run-time rules go.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen !== '') void load({ name: chosen });
        }}
      >
        <label>
          Ready-made scenario{' '}
          <select value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
            {(available?.available ?? []).map((scenario) => (
              <option key={scenario.name} value={scenario.name}>
                {scenario.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" disabled={busy || chosen === ''}>
          Load scenario
        </button>
      </form>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (yaml.trim() !== '') void load({ yaml });
        }}
      >
        <p>
          <label for="scenario-yaml">Scenario YAML</label>
        </p>
        <div class="scenario-editor">
          <pre class="scenario-gutter" ref={gutter} aria-hidden="true">
            {lineNumbers(yaml).map((line) => (
              <span key={line} data-line={line} class={line === errorAt?.line ? 'error-line' : undefined}>
                {line === errorAt?.line ? `▶ ${line}` : line}
              </span>
            ))}
          </pre>
          <textarea
            id="scenario-yaml"
            ref={editor}
            rows={14}
            spellcheck={false}
            value={yaml}
            aria-invalid={yamlError !== null && errorAt !== null}
            aria-describedby={yamlError && errorAt ? 'scenario-yaml-error' : undefined}
            onInput={(event) => setYaml(event.currentTarget.value)}
            onScroll={(event) => {
              if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop;
            }}
          />
        </div>
        <button type="submit" disabled={busy || yaml.trim() === ''}>
          Load YAML
        </button>
      </form>
      {yamlError && (
        <div role="alert">
          <p id="scenario-yaml-error">
            {errorAt && (
              <strong class="scenario-error-at">
                Line {errorAt.line}, column {errorAt.column}:{' '}
              </strong>
            )}
            {yamlError.message}
          </p>
          {errorAt && (
            <button type="button" onClick={() => goToError(errorAt)}>
              Go to error
            </button>
          )}
        </div>
      )}

      <h3>Active rules</h3>
      {rules.data === null ? (
        <p>Reading…</p>
      ) : rules.data.data.length === 0 ? (
        <p>No active rule.</p>
      ) : (
        <table class="scenario-rules">
          <caption>Rules in the order requests meet them; hits are the requests each answered</caption>
          <thead>
            <tr>
              {RULE_COLUMNS.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rules.data.data.map((rule) => (
              <tr key={rule.id} data-rule={rule.id}>
                <th scope="row">
                  <code>{rule.id}</code>
                  {rule.description && <div>{rule.description}</div>}
                </th>
                <td>{rule.source === 'runtime' ? 'run time' : (rule.scenario ?? 'scenario')}</td>
                <td>{matchText(rule.match)}</td>
                <td class="rule-hits">{hitsText(rule)}</td>
                <td>{rule.phase}</td>
                <td>
                  <button type="button" disabled={busy} onClick={() => void removeRule(rule.id)}>
                    Remove {rule.id}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h3>Add a rule</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void addRule();
        }}
      >
        <label for="rule-json">Rule as JSON (match, then, times, description, id: as in a scenario file)</label>
        <textarea id="rule-json" class="rule-editor" rows={8} spellcheck={false} value={snippet} aria-describedby={ruleError ? 'rule-error' : undefined} onInput={(event) => setSnippet(event.currentTarget.value)} />
        <div>
          <button type="submit" disabled={busy}>
            Add rule
          </button>
        </div>
        {ruleError && (
          <p role="alert" id="rule-error">
            {ruleError}
          </p>
        )}
      </form>
    </section>
  );
}
