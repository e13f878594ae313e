const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${VAR}` references with environment values; a missing variable is an error naming it. */
export function resolveSecret(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(REFERENCE, (_, name: string) => {
    const resolved = env[name];
    if (resolved === undefined || resolved === '') throw new Error(unsetMessage(name));
    return resolved;
  });
}

/** The variables `value` references that the environment does not set, in order. */
export function unsetVariables(value: string, env: NodeJS.ProcessEnv): string[] {
  return [...value.matchAll(REFERENCE)].map((match) => match[1]).filter((name) => env[name] === undefined || env[name] === '');
}

/** What plan and apply say of a `${VAR}` the environment does not set. */
export function unsetMessage(name: string): string {
  return `environment variable ${name} is not set (referenced as \${${name}})`;
}
