// Pure tag commands: tag types, tags, and tags on flags. Removing a tag type or a tag takes
// everything that refers to it along in the same change, so no flag keeps a dangling tag.
import type { Change, EventDraft } from '../../core/engine/command.js';
import { invalid, NameExistsError, NotFoundError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import { tagKey, type State } from '../../core/state/state.js';
import type { Feature, Tag, TagType } from '../../core/state/types.js';

export interface TagTypeInput {
  name: string;
  description?: string | null;
  icon?: string | null;
}

export interface TagInput {
  type: string;
  value: string;
}

export function requireTagType(state: State, name: string): TagType {
  const t = state.tagTypes.get(name);
  if (!t) throw new NotFoundError(`Could not find tag type "${name}".`);
  return t;
}

export function requireTag(state: State, type: string, value: string): Tag {
  const t = state.tags.get(tagKey({ type, value }));
  if (!t) throw new NotFoundError(`Could not find tag "${type}:${value}".`);
  return t;
}

/** Any flag, archived included: tags stay with a flag in the archive. */
export function requireAnyFeature(state: State, name: string): Feature {
  const f = state.features.get(name);
  if (!f) throw new NotFoundError(`Could not find feature "${name}".`);
  return f;
}

/** Trims the value and checks both parts; a tag type that does not exist is a 400 on `type`. */
export function normalizeTag(state: State, input: TagInput, at = ''): Tag {
  const value = input.value.trim();
  if (value.length < 2 || value.length > 50) throw invalid(`${at}value`, `"value" must be 2 to 50 characters long after trimming, got ${value.length}`);
  if (!state.tagTypes.has(input.type)) throw invalid(`${at}type`, `tag type "${input.type}" does not exist`);
  return { type: input.type, value };
}

export function byTypeThenValue(a: Tag, b: Tag): number {
  return a.type < b.type ? -1 : a.type > b.type ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** Flags carrying each of the given tags, as `featureTag.del` ops. */
function untagOps(state: State, matches: (t: Tag) => boolean): Op[] {
  const ops: Op[] = [];
  for (const [feature, tags] of state.featureTags) {
    for (const tag of tags) if (matches(tag)) ops.push({ o: 'featureTag.del', feature, tag });
  }
  return ops;
}

export function createTagType(input: TagTypeInput) {
  return (state: State): Change<TagType> => {
    if (state.tagTypes.has(input.name)) throw new NameExistsError(`A tag type named "${input.name}" already exists.`);
    const tagType: TagType = { name: input.name, description: input.description ?? '', icon: input.icon ?? null };
    return { ops: [{ o: 'tagType.put', tagType }], events: [{ type: 'tag-type-created', data: tagType }], result: tagType };
  };
}

export function updateTagType(name: string, input: Omit<TagTypeInput, 'name'>) {
  return (state: State): Change<TagType> => {
    const before = requireTagType(state, name);
    const after: TagType = {
      name,
      description: input.description !== undefined ? (input.description ?? '') : before.description,
      icon: input.icon !== undefined ? input.icon : before.icon,
    };
    return { ops: [{ o: 'tagType.put', tagType: after }], events: [{ type: 'tag-type-updated', data: after, preData: before }], result: after };
  };
}

/** Its tags and every flag's use of them go too (Unleash cascades the same way). */
export function deleteTagType(name: string) {
  return (state: State): Change<null> => {
    const before = requireTagType(state, name);
    const ops: Op[] = untagOps(state, (t) => t.type === name);
    for (const tag of state.tags.values()) if (tag.type === name) ops.push({ o: 'tag.del', tag });
    ops.push({ o: 'tagType.del', name });
    return { ops, events: [{ type: 'tag-type-deleted', preData: before }], result: null };
  };
}

export function createTag(input: TagInput) {
  return (state: State): Change<Tag> => {
    const tag = normalizeTag(state, input);
    if (state.tags.has(tagKey(tag))) throw new NameExistsError(`The tag "${tag.type}:${tag.value}" already exists.`);
    return { ops: [{ o: 'tag.put', tag }], events: [{ type: 'tag-created', data: tag }], result: tag };
  };
}

export function deleteTag(type: string, value: string) {
  return (state: State): Change<null> => {
    const tag = requireTag(state, type, value);
    const key = tagKey(tag);
    const ops = untagOps(state, (t) => tagKey(t) === key);
    ops.push({ o: 'tag.del', tag });
    return { ops, events: [{ type: 'tag-deleted', preData: tag }], result: null };
  };
}

/**
 * Creates the tag when it does not exist yet (with its own tag-created event). Tagging a flag
 * that already carries the tag changes nothing and records nothing.
 */
export function tagFeature(featureName: string, input: TagInput) {
  return (state: State): Change<Tag> => {
    const feature = requireAnyFeature(state, featureName);
    const tag = normalizeTag(state, input);
    const key = tagKey(tag);
    if ((state.featureTags.get(featureName) ?? []).some((t) => tagKey(t) === key)) return { ops: [], events: [], result: tag };
    const ops: Op[] = [];
    const events: EventDraft[] = [];
    if (!state.tags.has(key)) {
      ops.push({ o: 'tag.put', tag });
      events.push({ type: 'tag-created', data: tag });
    }
    ops.push({ o: 'featureTag.add', feature: featureName, tag });
    events.push({ type: 'feature-tagged', project: feature.project, featureName, data: tag });
    return { ops, events, result: tag };
  };
}

export function untagFeature(featureName: string, type: string, value: string) {
  return (state: State): Change<null> => {
    const feature = requireAnyFeature(state, featureName);
    const key = tagKey({ type, value });
    const tag = (state.featureTags.get(featureName) ?? []).find((t) => tagKey(t) === key);
    if (!tag) throw new NotFoundError(`Feature "${featureName}" is not tagged "${type}:${value}".`);
    return {
      ops: [{ o: 'featureTag.del', feature: featureName, tag }],
      events: [{ type: 'feature-untagged', project: feature.project, featureName, preData: tag }],
      result: null,
    };
  };
}

/**
 * Unleash's bulk form: the flag ends up carrying (current ∪ added) − removed. Removing a tag the
 * flag does not carry is nothing to do, as setting a set is; naming one tag on both sides is a 400.
 */
export function updateFeatureTags(featureName: string, added: TagInput[], removed: TagInput[]) {
  return (state: State): Change<Tag[]> => {
    const feature = requireAnyFeature(state, featureName);
    const adds = added.map((t, i) => normalizeTag(state, t, `addedTags[${i}].`));
    const removeKeys = new Set(removed.map((t) => tagKey({ type: t.type, value: t.value.trim() })));
    adds.forEach((t, i) => {
      if (removeKeys.has(tagKey(t))) throw invalid(`addedTags[${i}]`, `"${tagKey(t)}" is both added and removed`);
    });
    const current = state.featureTags.get(featureName) ?? [];
    const carried = new Set(current.map(tagKey));
    const ops: Op[] = [];
    const events: EventDraft[] = [];
    for (const tag of adds) {
      const key = tagKey(tag);
      if (carried.has(key)) continue;
      carried.add(key);
      if (!state.tags.has(key)) {
        ops.push({ o: 'tag.put', tag });
        events.push({ type: 'tag-created', data: tag });
      }
      ops.push({ o: 'featureTag.add', feature: featureName, tag });
      events.push({ type: 'feature-tagged', project: feature.project, featureName, data: tag });
    }
    for (const tag of current) {
      if (!removeKeys.has(tagKey(tag))) continue;
      ops.push({ o: 'featureTag.del', feature: featureName, tag });
      events.push({ type: 'feature-untagged', project: feature.project, featureName, preData: tag });
    }
    const result = new Map<string, Tag>();
    for (const t of [...current, ...adds]) if (!removeKeys.has(tagKey(t))) result.set(tagKey(t), t);
    return { ops, events, result: [...result.values()].sort(byTypeThenValue) };
  };
}
