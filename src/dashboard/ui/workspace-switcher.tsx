import { useRef, useState } from 'preact/hooks';
import type { ControlClient } from './control-client.js';
import type { WorkspaceListing } from './contract.js';

export interface WorkspaceSwitcherProps {
  client: ControlClient;
  workspaces: WorkspaceListing[];
  /** The workspace shown; null for the default one. */
  current: string | null;
  onSelect: (workspaceId: string | null) => void;
  /** The workspace list or the current workspace's world changed. */
  onChanged: (selectWorkspaceId?: string) => void;
  onFailure: (failure: unknown) => void;
}

/**
 * Lists the server's workspaces (`GET /__control/workspaces`), and creates, resets,
 * snapshots (a download of `GET /__control/state`) and restores (`PUT /__control/state`)
 * the one shown.
 */
export function WorkspaceSwitcher({ client, workspaces, current, onSelect, onChanged, onFailure }: WorkspaceSwitcherProps) {
  const [status, setStatus] = useState('');
  const upload = useRef<HTMLInputElement>(null);
  const shownId = current ?? workspaces.find((workspace) => workspace.default)?.workspaceId ?? '';

  async function act(work: () => Promise<string>) {
    try {
      setStatus(await work());
    } catch (failure) {
      setStatus('');
      onFailure(failure);
    }
  }

  const create = () =>
    act(async () => {
      const made = await client.call('createWorkspace', { body: {} });
      onChanged(made.workspaceId);
      return `Created ${made.workspaceId} (API key ${made.apiKey}).`;
    });

  const reset = () =>
    act(async () => {
      if (!confirm(`Reset ${shownId} to its start? Its world and journal are cleared.`)) return '';
      await client.call('resetWorkspace');
      onChanged();
      return `Reset ${shownId}.`;
    });

  const snapshot = () =>
    act(async () => {
      const blob = await (await client.response('getState')).blob();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `${shownId}-snapshot.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      return `Snapshot of ${shownId} downloaded.`;
    });

  const restore = (file: File) =>
    act(async () => {
      if (!confirm(`Replace the world of ${shownId} with ${file.name}?`)) return '';
      await client.response('putState', { text: await file.text() });
      onChanged();
      return `Restored ${shownId} from ${file.name}.`;
    });

  return (
    <div class="workspace" role="group" aria-label="Workspace actions">
      <label for="workspace-picker">Workspace</label>
      <select
        id="workspace-picker"
        value={shownId}
        onChange={(event) => {
          const id = event.currentTarget.value;
          onSelect(workspaces.find((workspace) => workspace.workspaceId === id)?.default ? null : id);
        }}
      >
        {workspaces.map((workspace) => (
          <option key={workspace.workspaceId} value={workspace.workspaceId}>
            {workspace.workspaceId}
            {workspace.default ? ' (default)' : ''} · {workspace.plan}
          </option>
        ))}
      </select>
      <button type="button" onClick={() => void create()}>
        New workspace
      </button>
      <button type="button" onClick={() => void reset()}>
        Reset
      </button>
      <button type="button" onClick={() => void snapshot()}>
        Snapshot
      </button>
      <button type="button" onClick={() => upload.current?.click()}>
        Restore…
      </button>
      <input
        ref={upload}
        type="file"
        accept="application/json,.json"
        hidden
        aria-label="Snapshot file to restore"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          event.currentTarget.value = '';
          if (file) void restore(file);
        }}
      />
      <span role="status">{status}</span>
    </div>
  );
}
