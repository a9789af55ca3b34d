#!/usr/bin/python3
"""Checks a META.json against the PGXN Meta Spec 1.0.0
(https://pgxn.org/spec/): the required keys, the type and form of every key
the spec defines (semantic versions, licence names, prerequisite phases,
relationships and version ranges, release_status, resources), and no keys
but those and x_ custom ones.  Prints one line per violation; exits 1 if
there is any, 0 if the file is valid.

    pgxn_meta.py META.json
"""
import json
import re
import sys

SEMVER = re.compile(r'^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)'
                    r'(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$')
TERM = re.compile(r'^[^\s/\\:\x00-\x1f]{2,}$')       # names: 2+ characters, no space, / \ :
URI = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:\S+$')
EMAIL = re.compile(r'^[^@\s]+@[^@\s]+\.[^@\s]+$')
RANGE_PART = re.compile(r'^\s*(==|!=|<=|>=|<|>)?\s*(\S+)\s*$')
LICENSES = {'agpl_3', 'apache_1_1', 'apache_2_0', 'artistic_1', 'artistic_2', 'bsd', 'freebsd',
            'gfdl_1_2', 'gfdl_1_3', 'gpl_1', 'gpl_2', 'gpl_3', 'lgpl_2_1', 'lgpl_3_0', 'mit',
            'mozilla_1_0', 'mozilla_1_1', 'openssl', 'perl_5', 'postgresql', 'qpl_1_0', 'ssleay',
            'sun', 'zlib', 'open_source', 'restricted', 'unrestricted', 'unknown'}
TOP_REQUIRED = {'abstract', 'license', 'maintainer', 'meta-spec', 'name', 'provides', 'version'}
TOP_OPTIONAL = {'description', 'generated_by', 'no_index', 'prereqs', 'release_status', 'resources', 'tags'}
PHASES = {'configure', 'build', 'test', 'runtime', 'develop'}
RELATIONS = {'requires', 'recommends', 'suggests', 'conflicts'}


def custom(key):
    return key[:2] in ('x_', 'X_')


def check(meta):
    errors = []

    def err(path, problem):
        errors.append(f'{path}: {problem}')

    def string(path, value, nonempty=True):
        if not isinstance(value, str) or (nonempty and not value.strip()):
            err(path, 'must be a non-empty string')
            return False
        return True

    def keys(path, obj, allowed, required=()):
        if not isinstance(obj, dict):
            err(path, 'must be an object')
            return False
        for k in required:
            if k not in obj:
                err(path, f'lacks the required key "{k}"')
        for k in obj:
            if k not in allowed and k not in required and not custom(k):
                err(path, f'has the unknown key "{k}"')
        return True

    def semver(path, value):
        if not isinstance(value, str) or not SEMVER.match(value):
            err(path, f'{value!r} is not a semantic version (major.minor.patch)')

    def uri(path, value):
        if not isinstance(value, str) or not URI.match(value):
            err(path, f'{value!r} is not a URI')

    def version_range(path, value):
        if value == 0 and isinstance(value, int) and not isinstance(value, bool):
            return
        if not isinstance(value, str):
            err(path, f'{value!r} is not a version range')
            return
        for part in value.split(','):
            m = RANGE_PART.match(part)
            if not m:
                err(path, f'{value!r} is not a version range')
                return
            semver(path, m.group(2))

    if not keys('META.json', meta, TOP_OPTIONAL, TOP_REQUIRED):
        return errors
    if 'name' in meta and string('name', meta['name']) and not TERM.match(meta['name']):
        err('name', f'{meta["name"]!r} must be 2+ characters without spaces, "/", "\\" or ":"')
    for k in ('abstract', 'description', 'generated_by'):
        if k in meta:
            string(k, meta[k])
    if 'version' in meta:
        semver('version', meta['version'])
    m = meta.get('maintainer')
    if 'maintainer' in meta and not (isinstance(m, str) and m.strip()) and not (
            isinstance(m, list) and m and all(isinstance(x, str) and x.strip() for x in m)):
        err('maintainer', 'must be a string or a non-empty list of strings')
    lic = meta.get('license')
    if 'license' in meta:
        if isinstance(lic, str):
            if lic not in LICENSES:
                err('license', f'{lic!r} is not one of the spec\'s licence names')
        elif isinstance(lic, list) and lic:
            for x in lic:
                if x not in LICENSES:
                    err('license', f'{x!r} is not one of the spec\'s licence names')
        elif isinstance(lic, dict) and lic:
            for name, link in lic.items():
                uri(f'license.{name}', link)
        else:
            err('license', 'must be a licence name, a list of them, or an object of names and URIs')
    if 'meta-spec' in meta and keys('meta-spec', meta['meta-spec'], {'url'}, ('version',)):
        if meta['meta-spec'].get('version') != '1.0.0':
            err('meta-spec.version', f'{meta["meta-spec"].get("version")!r} is not "1.0.0"')
        if 'url' in meta['meta-spec']:
            uri('meta-spec.url', meta['meta-spec']['url'])
    if 'provides' in meta and not isinstance(meta['provides'], dict):
        err('provides', 'must be an object')
    elif 'provides' in meta:
        if not meta['provides']:
            err('provides', 'must name at least one extension')
        for ext, body in meta['provides'].items():
            path = f'provides.{ext}'
            if not TERM.match(ext):
                err(path, 'is not a valid extension name')
            if keys(path, body, {'abstract', 'docfile'}, ('file', 'version')):
                if 'file' in body:
                    string(f'{path}.file', body['file'])
                if 'version' in body:
                    semver(f'{path}.version', body['version'])
                for k in ('abstract', 'docfile'):
                    if k in body:
                        string(f'{path}.{k}', body[k])
    if 'prereqs' in meta and keys('prereqs', meta['prereqs'], PHASES):
        for phase, relations in meta['prereqs'].items():
            if custom(phase) or not keys(f'prereqs.{phase}', relations, RELATIONS):
                continue
            for relation, reqs in relations.items():
                path = f'prereqs.{phase}.{relation}'
                if custom(relation):
                    continue
                if not isinstance(reqs, dict) or not reqs:
                    err(path, 'must map at least one name to a version range')
                    continue
                for name, rng in reqs.items():
                    if not TERM.match(name):
                        err(f'{path}.{name}', 'is not a valid name')
                    version_range(f'{path}.{name}', rng)
    if 'release_status' in meta and meta['release_status'] not in ('stable', 'testing', 'unstable'):
        err('release_status', f'{meta["release_status"]!r} is not stable, testing or unstable')
    res = meta.get('resources')
    if 'resources' in meta and keys('resources', res, {'homepage', 'bugtracker', 'repository'}):
        if not res:
            err('resources', 'must have at least one resource')
        if 'homepage' in res:
            uri('resources.homepage', res['homepage'])
        if 'bugtracker' in res and keys('resources.bugtracker', res['bugtracker'], {'web', 'mailto'}):
            if not res['bugtracker']:
                err('resources.bugtracker', 'must have web or mailto')
            if 'web' in res['bugtracker']:
                uri('resources.bugtracker.web', res['bugtracker']['web'])
            if 'mailto' in res['bugtracker'] and not EMAIL.match(str(res['bugtracker']['mailto'])):
                err('resources.bugtracker.mailto', 'is not an e-mail address')
        if 'repository' in res and keys('resources.repository', res['repository'], {'url', 'web', 'type'}):
            for k in ('url', 'web'):
                if k in res['repository']:
                    uri(f'resources.repository.{k}', res['repository'][k])
            if 'type' in res['repository']:
                string('resources.repository.type', res['repository']['type'])
    if 'tags' in meta:
        tags = meta['tags']
        if not isinstance(tags, list) or not tags or not all(
                isinstance(t, str) and 0 < len(t) <= 255 for t in tags):
            err('tags', 'must be a non-empty list of strings of 1 to 255 characters')
    if 'no_index' in meta and keys('no_index', meta['no_index'], {'file', 'directory'}):
        for k, v in meta['no_index'].items():
            if not custom(k) and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
                err(f'no_index.{k}', 'must be a list of strings')
    return errors


if __name__ == '__main__':
    try:
        with open(sys.argv[1], encoding='utf-8') as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f'{sys.argv[1]}: {e}')
        sys.exit(1)
    problems = check(meta)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
