/** Replaces `${VAR}` references with environment values; a missing variable is an error naming it. */
export function resolveSecret(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const resolved = env[name];
    if (resolved === undefined || resolved === '') throw new Error(`environment variable ${name} is not set (referenced as \${${name}})`);
    return resolved;
  });
}
