import type { JSX } from 'preact';
import type { ControlClient } from './control-client.js';

/** What the shell gives every view (each view's module default-exports a `ViewComponent`). */
export interface ViewProps {
  /** The view's label in VIEWS (views.ts), its heading. */
  label: string;
  client: ControlClient;
  /** Changes whenever the workspace changes or is reset: the view reads what it shows afresh. */
  generation: string;
  onTokenRequired: () => void;
}

export type ViewComponent = (props: ViewProps) => JSX.Element;
