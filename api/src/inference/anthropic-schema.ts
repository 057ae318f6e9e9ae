import { type Static, Type } from '@sinclair/typebox';

/*
 * The vendor's Messages API request, as far as the platform reads it (docs/adr/0024). Blocks and
 * the top level accept fields the platform does not use (`cache_control`, `citations`,
 * `thinking`, …): the vendor's own clients send them, and they have no meaning for an
 * OpenAI-compatible backend, so they are ignored rather than refused.
 */

const Loose = { additionalProperties: true } as const;

export const TextBlock = Type.Object(
  { type: Type.Literal('text'), text: Type.String() },
  { ...Loose, title: 'AnthropicTextBlock' },
);
const ImageSource = Type.Union([
  Type.Object(
    {
      type: Type.Literal('base64'),
      media_type: Type.Union(
        ['image/jpeg', 'image/png', 'image/gif', 'image/webp'].map((m) => Type.Literal(m)),
      ),
      data: Type.String({ minLength: 1 }),
    },
    Loose,
  ),
  Type.Object({ type: Type.Literal('url'), url: Type.String({ minLength: 1 }) }, Loose),
]);
export const ImageBlock = Type.Object(
  { type: Type.Literal('image'), source: ImageSource },
  { ...Loose, title: 'AnthropicImageBlock' },
);
export const ToolUseBlock = Type.Object(
  {
    type: Type.Literal('tool_use'),
    id: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1 }),
    input: Type.Unknown(),
  },
  { ...Loose, title: 'AnthropicToolUseBlock' },
);
export const ToolResultBlock = Type.Object(
  {
    type: Type.Literal('tool_result'),
    tool_use_id: Type.String({ minLength: 1 }),
    content: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Union([TextBlock, ImageBlock]))]),
    ),
    is_error: Type.Optional(Type.Boolean()),
  },
  { ...Loose, title: 'AnthropicToolResultBlock' },
);
/** Reasoning blocks a client sends back with an earlier answer: dropped on the way out. */
const ThinkingBlock = Type.Object(
  { type: Type.Union([Type.Literal('thinking'), Type.Literal('redacted_thinking')]) },
  Loose,
);
export const ContentBlock = Type.Union([
  TextBlock,
  ImageBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
]);

/**
 * `system` messages inside the conversation are what the vendor's command-line tool sends for
 * context that arrives mid-conversation (its environment, tools that changed); text only.
 */
export const MessageParam = Type.Object(
  {
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    content: Type.Union([Type.String(), Type.Array(ContentBlock)]),
  },
  { additionalProperties: false },
);

export const ToolParam = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.Optional(Type.String()),
    input_schema: Type.Object({}, { additionalProperties: true }),
    type: Type.Optional(Type.Union([Type.Literal('custom'), Type.Null()])),
  },
  Loose,
);

export const ToolChoice = Type.Union([
  Type.Object(
    {
      type: Type.Union([Type.Literal('auto'), Type.Literal('any'), Type.Literal('none')]),
      disable_parallel_tool_use: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('tool'),
      name: Type.String({ minLength: 1 }),
      disable_parallel_tool_use: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
]);

const common = {
  model: Type.String({ minLength: 1, maxLength: 300 }),
  messages: Type.Array(MessageParam, { minItems: 1, maxItems: 100_000 }),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(TextBlock)])),
  tools: Type.Optional(Type.Array(ToolParam, { maxItems: 1000 })),
  tool_choice: Type.Optional(ToolChoice),
};

export const MessagesRequest = Type.Object(
  {
    ...common,
    max_tokens: Type.Integer({ minimum: 1 }),
    metadata: Type.Optional(
      Type.Object(
        { user_id: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])) },
        Loose,
      ),
    ),
    stop_sequences: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { ...Loose, title: 'AnthropicMessagesRequest' },
);
export type MessagesRequest = Static<typeof MessagesRequest>;
export type MessageParam = Static<typeof MessageParam>;
export type ContentBlock = Static<typeof ContentBlock>;

export const CountTokensRequest = Type.Object(common, {
  ...Loose,
  title: 'AnthropicCountTokensRequest',
});
export type CountTokensRequest = Static<typeof CountTokensRequest>;

/* Answers. */

const Usage = Type.Object({
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  cache_creation_input_tokens: Type.Integer(),
  cache_read_input_tokens: Type.Integer(),
});
export const AnthropicMessage = Type.Object(
  {
    id: Type.String({ description: '`msg_…`' }),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    model: Type.String(),
    content: Type.Array(
      Type.Union([
        Type.Object({ type: Type.Literal('text'), text: Type.String() }),
        Type.Object({
          type: Type.Literal('tool_use'),
          id: Type.String({ description: '`toolu_…`' }),
          name: Type.String(),
          input: Type.Unknown(),
        }),
      ]),
    ),
    stop_reason: Type.Union(
      ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'].map((r) =>
        Type.Literal(r),
      ),
    ),
    stop_sequence: Type.Union([Type.String(), Type.Null()]),
    usage: Usage,
  },
  { title: 'AnthropicMessage' },
);
export type AnthropicMessage = Static<typeof AnthropicMessage>;
export type StopReason = AnthropicMessage['stop_reason'];
export type AnswerBlock = AnthropicMessage['content'][number];

export const CountTokensAnswer = Type.Object(
  { input_tokens: Type.Integer() },
  { title: 'AnthropicCountTokens' },
);

export const AnthropicModelInfo = Type.Object(
  {
    type: Type.Literal('model'),
    id: Type.String(),
    display_name: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'AnthropicModelInfo' },
);
export type AnthropicModelInfo = Static<typeof AnthropicModelInfo>;
export const AnthropicModelList = Type.Object(
  {
    data: Type.Array(AnthropicModelInfo),
    has_more: Type.Boolean(),
    first_id: Type.Union([Type.String(), Type.Null()]),
    last_id: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'AnthropicModelList' },
);
export const ModelListQuery = Type.Object({
  limit: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,4}$', description: '1 to 1000, default 20' }),
  ),
  after_id: Type.Optional(Type.String({ maxLength: 300 })),
  before_id: Type.Optional(Type.String({ maxLength: 300 })),
});
