/** The session's plan mode as the plan tools see it: under it the read-only floor holds (SPEC 5). */
export interface PlanMode {
  active(): boolean;
  enter(): void;
  exit(): void;
}
