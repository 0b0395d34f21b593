/**
 * Migrations: applied once each, in order, atomically; an existing database upgrades in place.
 */
import { describe, expect, it } from 'vitest';
import { applyMigrations, openDatabase } from '../../src/commerce-service/db.ts';
import { migrations } from '../../src/commerce-service/migrations.ts';

describe('migrations', () => {
  it('applies every migration once and records it', () => {
    const db = openDatabase(':memory:');
    const recorded = db.prepare('SELECT id FROM schema_migrations').pluck().all();
    expect(recorded).toEqual(migrations.map((m) => m.id));
    expect(applyMigrations(db, migrations)).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('rolls a failing migration back whole and records nothing for it', () => {
    const db = openDatabase(':memory:');
    const broken = [
      ...migrations,
      { id: '9999-broken', sql: 'CREATE TABLE half_done (id TEXT); SELECT * FROM no_such_table;' },
    ];
    expect(() => applyMigrations(db, broken)).toThrow(/no_such_table/);
    expect(
      db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'half_done'").get(),
    ).toBeUndefined();
    expect(
      db.prepare("SELECT 1 FROM schema_migrations WHERE id = '9999-broken'").get(),
    ).toBeUndefined();
    db.close();
  });

  it('refuses a list that names one migration twice', () => {
    const db = openDatabase(':memory:');
    const [first] = migrations;
    if (!first) throw new Error('no migrations');
    expect(() => applyMigrations(db, [...migrations, first])).toThrow(/appears twice/);
    db.close();
  });

  it('upgrades a database made by the first migration, counting its existing entries', () => {
    const [first] = migrations;
    if (!first) throw new Error('no migrations');
    const db = openDatabase(':memory:', [first]);
    db.exec(`
      INSERT INTO stores (id, client_id, created_at, updated_at) VALUES ('s', 'c', 't', 't');
      INSERT INTO custom_apis (id, store_id, name, slug, api_type, created_at, updated_at)
        VALUES ('a', 's', 'A', 'a', 'a_ext', 't', 't');
      INSERT INTO custom_api_entries (store_id, custom_api_id, id, data, data_size, etag_id,
        created_at, updated_at) VALUES ('s', 'a', 'e1', '{}', 0, 'x', 't', 't'),
        ('s', 'a', 'e2', '{}', 0, 'x', 't', 't');
    `);
    applyMigrations(db, migrations);
    const count = db.prepare(
      'SELECT entry_count FROM custom_api_entry_counts WHERE custom_api_id = ?',
    );
    expect(count.pluck().get('a')).toBe(2);
    db.exec("DELETE FROM custom_api_entries WHERE id = 'e1'");
    expect(count.pluck().get('a')).toBe(1);
    db.exec("DELETE FROM custom_apis WHERE id = 'a'");
    expect(count.pluck().get('a')).toBeUndefined();
    db.close();
  });
});
