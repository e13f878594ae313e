import { useEffect, useState } from 'preact/hooks';
import { api, type ApiFailure } from '../api.js';
import { Empty, Failure, Loading } from '../components.js';
import { operationsByTag, type OpenApiDocument, type ReferenceField, type ReferenceOperation } from '../openapi-reference.js';
import { failureOf } from '../use-submit.js';

/** Where the core serves the document this view renders. */
export const OPENAPI_DOCUMENT = '/api/v1/openapi.json';

function Example({ label, value }: { label: string; value: unknown }) {
  if (value === undefined) return null;
  return (
    <div class="snippet">
      <p class="muted">{label}</p>
      <pre tabIndex={0} aria-label={label}>
        {JSON.stringify(value, null, 2)}
      </pre>
    </div>
  );
}

function Fields({ title, label, fields }: { title: string; label: string; fields: ReferenceField[] }) {
  if (fields.length === 0) return null;
  return (
    <>
      <p class="muted">{title}</p>
      <ul class="parameters" aria-label={label}>
        {fields.map((field) => (
          <li key={field.name}>
            <code>{field.name}</code> <span class="muted">({field.type}{field.required ? ', required' : ''})</span> {field.description}
          </li>
        ))}
      </ul>
    </>
  );
}

function Parameters({ operation }: { operation: ReferenceOperation }) {
  if (operation.parameters.length === 0) return null;
  return (
    <ul class="parameters">
      {operation.parameters.map((parameter) => (
        <li key={`${parameter.where}-${parameter.name}`}>
          <code>{parameter.name}</code> <span class="muted">({parameter.where}{parameter.required ? ', required' : ''})</span> {parameter.description}
        </li>
      ))}
    </ul>
  );
}

function OperationEntry({ operation }: { operation: ReferenceOperation }) {
  return (
    <details class="operation" id={operation.id}>
      <summary>
        <code>{operation.method}</code> <code class="path">{operation.path}</code>
      </summary>
      <p>
        Auth: {operation.auth}. Answers {operation.success.status}
        {operation.success.schema ? <> (<code>{operation.success.schema}</code>)</> : null}; errors {operation.errors.join(', ')}.
      </p>
      <Parameters operation={operation} />
      {operation.body ? (
        <p>
          Body{operation.body.required ? '' : ' (optional)'}: <code>{operation.body.schema}</code>
        </p>
      ) : null}
      <Fields title="Body fields" label={`Body fields of ${operation.method} ${operation.path}`} fields={operation.body?.fields ?? []} />
      <Fields title="Answer fields (of each record of a list)" label={`Answer fields of ${operation.method} ${operation.path}`} fields={operation.success.fields} />
      <Example label={`Example body of ${operation.method} ${operation.path}`} value={operation.body?.example} />
      <Example label={`Example answer of ${operation.method} ${operation.path}`} value={operation.success.example} />
    </details>
  );
}

/** The API reference: every operation of the core's OpenAPI document, grouped, filterable, with its examples. */
export function ApiReferenceView() {
  const [document, setDocument] = useState<OpenApiDocument>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [filter, setFilter] = useState('');
  useEffect(() => {
    api<OpenApiDocument>('GET', OPENAPI_DOCUMENT).then(setDocument, (error: unknown) => setFailure(failureOf(error)));
  }, []);
  const groups = document ? operationsByTag(document, filter) : [];
  return (
    <section aria-labelledby="api-reference-title">
      <h1 id="api-reference-title">API reference</h1>
      <p>
        Generated from the core's route table: the <a href={OPENAPI_DOCUMENT}>OpenAPI 3.1 document</a> (for client generators), conventions in docs/api.md.
      </p>
      <Failure failure={failure} />
      <Loading when={!document && !failure} />
      {document ? (
        <>
          <label>
            Filter operations <input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} placeholder="domains/ or POST" />
          </label>
          {groups.length === 0 ? <Empty>No operation matches.</Empty> : null}
          {groups.map((group) => (
            <section key={group.tag} aria-labelledby={`api-tag-${group.tag}`}>
              <h2 id={`api-tag-${group.tag}`}>{group.tag}</h2>
              {group.operations.map((operation) => (
                <OperationEntry key={operation.id} operation={operation} />
              ))}
            </section>
          ))}
        </>
      ) : null}
    </section>
  );
}
