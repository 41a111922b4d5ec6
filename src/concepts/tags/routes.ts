import { NameExistsError } from '../../core/errors.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import type { State } from '../../core/state/state.js';
import {
  byTypeThenValue, createTag, createTagType, deleteTag, deleteTagType, requireAnyFeature, requireTag, requireTagType, tagFeature,
  untagFeature, updateFeatureTags, updateTagType, type TagInput, type TagTypeInput,
} from './logic.js';
import { tagReplies, tagSchemas } from './schema.js';

const TYPES = '/api/admin/tag-types';
const TAGS = '/api/admin/tags';
const FEATURE_TAGS = '/api/admin/features/:featureName/tags';
const TAG = 'Tags';
const ofFeature = (p: Record<string, string>, s: State) => ({ project: s.features.get(p.featureName)?.project });

/** Routes of tag types, tags and the tags of a flag. */
export function tagRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(tagSchemas);
  ctx.schemas.describe(tagReplies);
  const { engine } = ctx;
  const tagsWhere = (keep: (type: string) => boolean) => [...engine.state.tags.values()].filter((t) => keep(t.type)).sort(byTypeThenValue);
  return [
    {
      method: 'GET', path: TYPES, tag: TAG, summary: 'List tag types', reply: tagReplies.tagTypesReplySchema, permission: 'READ',
      handler: () => ({
        status: 200,
        body: { version: 1, tagTypes: [...engine.state.tagTypes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) },
      }),
    },
    {
      method: 'GET', path: `${TYPES}/:name`, tag: TAG, summary: 'Get a tag type', reply: tagReplies.versionedTagTypeSchema, permission: 'READ',
      handler: ({ params }) => ({ status: 200, body: { version: 1, tagType: requireTagType(engine.state, params.name) } }),
    },
    {
      method: 'POST', path: `${TYPES}/validate`, tag: TAG, summary: 'Check that a tag type name is valid and free', reply: tagReplies.tagTypeValidSchema,
      body: tagSchemas.createTagTypeSchema, permission: 'READ', responses: { 200: 'Valid and free', 400: 'Invalid', 409: 'Taken' },
      handler: ({ body }) => {
        const name = (body as TagTypeInput).name;
        if (engine.state.tagTypes.has(name)) throw new NameExistsError(`A tag type named "${name}" already exists.`);
        return { status: 200, body: { valid: true } };
      },
    },
    {
      method: 'POST', path: TYPES, tag: TAG, summary: 'Create a tag type', reply: tagReplies.tagTypeReplySchema, body: tagSchemas.createTagTypeSchema, permission: 'CREATE_TAG_TYPE',
      responses: { 201: 'Created', 400: 'Invalid', 409: 'Name taken' },
      handler: async ({ body, actor }) => ({ status: 201, body: await engine.run(actor, createTagType(body as TagTypeInput)) }),
    },
    {
      method: 'PUT', path: `${TYPES}/:name`, tag: TAG, summary: "Change a tag type's description or icon", reply: tagReplies.versionedTagTypeSchema, body: tagSchemas.updateTagTypeSchema,
      permission: 'UPDATE_TAG_TYPE', responses: { 200: 'Updated', 400: 'Invalid', 404: 'Unknown tag type' },
      handler: async ({ params, body, actor }) => ({
        status: 200,
        body: { version: 1, tagType: await engine.run(actor, updateTagType(params.name, body as Omit<TagTypeInput, 'name'>)) },
      }),
    },
    {
      method: 'DELETE', path: `${TYPES}/:name`, tag: TAG, summary: 'Delete a tag type with its tags, untagging every flag',
      permission: 'DELETE_TAG_TYPE', responses: { 200: 'Deleted', 404: 'Unknown tag type' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteTagType(params.name));
        return { status: 200 };
      },
    },
    {
      method: 'GET', path: TAGS, tag: TAG, summary: 'List tags', reply: tagReplies.tagsReplySchema, permission: 'READ',
      handler: () => ({ status: 200, body: { version: 1, tags: tagsWhere(() => true) } }),
    },
    {
      method: 'GET', path: `${TAGS}/:type`, tag: TAG, summary: 'List the tags of one type', reply: tagReplies.tagsReplySchema, permission: 'READ',
      handler: ({ params }) => {
        requireTagType(engine.state, params.type);
        return { status: 200, body: { version: 1, tags: tagsWhere((t) => t === params.type) } };
      },
    },
    {
      method: 'GET', path: `${TAGS}/:type/:value`, tag: TAG, summary: 'Get a tag', reply: tagReplies.versionedTagSchema, permission: 'READ',
      handler: ({ params }) => ({ status: 200, body: { version: 1, tag: requireTag(engine.state, params.type, params.value) } }),
    },
    {
      method: 'POST', path: TAGS, tag: TAG, summary: 'Create a tag', reply: tagReplies.versionedTagSchema, body: tagSchemas.tagSchema, permission: 'UPDATE_FEATURE',
      responses: { 201: 'Created', 400: 'Invalid value or unknown tag type', 409: 'Exists' },
      handler: async ({ body, actor }) => ({ status: 201, body: { version: 1, tag: await engine.run(actor, createTag(body as TagInput)) } }),
    },
    {
      method: 'DELETE', path: `${TAGS}/:type/:value`, tag: TAG, summary: 'Delete a tag, untagging every flag', permission: 'UPDATE_FEATURE',
      responses: { 200: 'Deleted', 404: 'Unknown tag' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteTag(params.type, params.value));
        return { status: 200 };
      },
    },
    {
      method: 'GET', path: FEATURE_TAGS, tag: TAG, summary: "List a flag's tags", reply: tagReplies.tagsReplySchema, permission: 'READ', scope: ofFeature,
      handler: ({ params }) => {
        requireAnyFeature(engine.state, params.featureName);
        return { status: 200, body: { version: 1, tags: [...(engine.state.featureTags.get(params.featureName) ?? [])].sort(byTypeThenValue) } };
      },
    },
    {
      method: 'POST', path: FEATURE_TAGS, tag: TAG, summary: 'Tag a flag (creating the tag if needed)', reply: tagReplies.tagReplySchema, body: tagSchemas.tagSchema,
      permission: 'UPDATE_FEATURE', scope: ofFeature,
      responses: { 201: 'Tagged (or already was)', 400: 'Invalid value or unknown tag type', 404: 'Unknown flag' },
      handler: async ({ params, body, actor }) => ({ status: 201, body: await engine.run(actor, tagFeature(params.featureName, body as TagInput)) }),
    },
    {
      method: 'PUT', path: FEATURE_TAGS, tag: TAG, summary: "Add and remove a flag's tags in one change", reply: tagReplies.tagsReplySchema, body: tagSchemas.updateTagsSchema,
      permission: 'UPDATE_FEATURE', scope: ofFeature,
      responses: { 200: "The flag's tags afterwards", 400: 'Invalid tag, unknown tag type, or a tag both added and removed', 404: 'Unknown flag' },
      handler: async ({ params, body, actor }) => {
        const { addedTags, removedTags } = body as { addedTags: TagInput[]; removedTags: TagInput[] };
        return { status: 200, body: { version: 1, tags: await engine.run(actor, updateFeatureTags(params.featureName, addedTags, removedTags)) } };
      },
    },
    {
      method: 'DELETE', path: `${FEATURE_TAGS}/:type/:value`, tag: TAG, summary: 'Remove a tag from a flag', permission: 'UPDATE_FEATURE', scope: ofFeature,
      responses: { 200: 'Untagged', 404: 'Unknown flag, or the flag does not carry that tag' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, untagFeature(params.featureName, params.type, params.value));
        return { status: 200 };
      },
    },
  ];
}
