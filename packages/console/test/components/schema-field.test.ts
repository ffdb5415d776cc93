import { addMessages } from '@svc/console-shared';
import { mount } from '@vue/test-utils';
import PrimeVue from 'primevue/config';
import { describe, expect, it } from 'vitest';
import en from '../../src/i18n/en';
import SchemaField from '../../src/resources/SchemaField.vue';
import { objectForm } from '../../src/resources/schema-fields';

// The field's words, in English as the console shows them first.
await addMessages({ en });

/** A Person's schema, as the people plugin declares it: every kind of field the form generates. */
const PERSON = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', description: 'What people call them.' },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        gender: { type: 'string', enum: ['MALE', 'FEMALE'] },
        tags: { type: 'array', items: { type: 'string' } },
        married: { type: 'boolean' },
        otherPerson: { $ref: '#' },
      },
    },
  },
};
const [SPEC] = objectForm(PERSON, false);

function mountSpec(
  object: Record<string, unknown>,
  options: { errors?: Record<string, string>; readonly?: boolean } = {},
) {
  return mount(SchemaField, {
    props: { field: SPEC!, object, errors: options.errors ?? {}, readonly: options.readonly },
    global: { plugins: [PrimeVue] },
  });
}

/** The `set` events the form emitted, as [pointer, value]. */
const sets = (wrapper: ReturnType<typeof mountSpec>) =>
  (wrapper.emitted('set') ?? []).map(([path, value]) => [`/${(path as string[]).join('/')}`, value]);

describe('the schema-generated form (SchemaField)', () => {
  it('renders a nested object as a fieldset with a labelled control per property', () => {
    const wrapper = mountSpec({ spec: { name: 'Ada', age: 36, tags: ['x', 'y'], married: true } });
    expect(wrapper.find('fieldset > legend').text()).toBe('Spec');
    const label = (id: string) => wrapper.find(`label[for="${id}"]`).text();
    expect(label('field-spec-name')).toBe('Name *');
    expect(label('field-spec-age')).toBe('Age');
    expect(label('field-spec-tags')).toBe('Tags (one per line)');
    expect(label('field-spec-married')).toBe('Married');
    expect(label('field-spec-otherPerson')).toBe('Other person (YAML)');
    expect(wrapper.find<HTMLInputElement>('#field-spec-name').element.value).toBe('Ada');
    expect(wrapper.find<HTMLInputElement>('#field-spec-age').attributes()).toMatchObject({ type: 'number', min: '0' });
    expect(wrapper.find<HTMLTextAreaElement>('#field-spec-tags').element.value).toBe('x\ny');
    expect(wrapper.text()).toContain('What people call them.');
  });

  it.each([
    { field: '#field-spec-name', typed: 'Grace', want: ['/spec/name', 'Grace'] },
    { field: '#field-spec-name', typed: '', want: ['/spec/name', undefined] },
    { field: '#field-spec-age', typed: '42', want: ['/spec/age', 42] },
    { field: '#field-spec-age', typed: '', want: ['/spec/age', undefined] },
    { field: '#field-spec-tags', typed: ' a \n\nb', want: ['/spec/tags', ['a', 'b']] },
    { field: '#field-spec-tags', typed: '', want: ['/spec/tags', undefined] },
    {
      field: '#field-spec-otherPerson',
      typed: 'spec:\n  name: Bob',
      want: ['/spec/otherPerson', { spec: { name: 'Bob' } }],
    },
  ])('sets $want.0 to $want.1 when "$typed" is typed', async ({ field, typed, want }) => {
    const wrapper = mountSpec({ spec: {} });
    await wrapper.find(field).setValue(typed);
    expect(sets(wrapper).at(-1)).toEqual(want);
  });

  it('keeps YAML that does not parse, says so, and sets nothing', async () => {
    const wrapper = mountSpec({ spec: {} });
    await wrapper.find('#field-spec-otherPerson').setValue('spec: [');
    expect(wrapper.text()).toContain('Not valid YAML');
    expect(sets(wrapper)).toEqual([]);
    expect(wrapper.find<HTMLTextAreaElement>('#field-spec-otherPerson').element.value).toBe('spec: [');
  });

  it("shows svc's error at its field, named by the control", () => {
    const wrapper = mountSpec({ spec: { age: 200 } }, { errors: { '/spec/age': 'must be <= 150' } });
    const age = wrapper.find('#field-spec-age');
    expect(age.attributes('aria-invalid')).toBe('true');
    const describedBy = age.attributes('aria-describedby');
    expect(wrapper.find(`#${describedBy}`).text()).toBe('must be <= 150');
    expect(wrapper.find('#field-spec-name').attributes('aria-invalid')).toBeUndefined();
  });

  it('shows the object without letting a reader change it', () => {
    const wrapper = mountSpec({ spec: { name: 'Ada' } }, { readonly: true });
    for (const id of ['name', 'age', 'tags', 'otherPerson']) {
      expect(wrapper.find(`#field-spec-${id}`).attributes()).toHaveProperty('disabled');
    }
  });
});
