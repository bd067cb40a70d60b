"""Independent reference for the key path format (docs/FORMAT.md), used once to write
path.txt. It shares no code with the Rust encoder; if the two disagree, the test fails."""
import base64, uuid

def int_seg(v):
    neg = v <= 0
    m = -v if v < 0 else v
    k = max(1, (m.bit_length() + 7) // 8)
    mag = m.to_bytes(k, 'big')
    return bytes([8 - k]) + bytes(255 - b for b in mag) if neg else bytes([7 + k]) + mag

def escape(raw):
    out = bytearray()
    for b in raw:
        out += bytes([0x10, b + 2]) if b <= 0x10 else bytes([b])
    return bytes(out)

def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80); v >>= 7
    out.append(v)
    return bytes(out)

def segment(kind, value):
    if kind == 'ns': return value.encode(), 0
    if kind == 'int': return int_seg(value), 1
    if kind == 'str': return (b'\x10' if value == '' else escape(value.encode())), 2
    if kind == 'bytes': return b'\xff' + escape(value), 3
    if kind == 'uuid': return uuid.UUID(value).bytes, 4

def encode(components):
    segs = []
    for ns, kind, value in components:
        segs.append(segment('ns', ns))
        if kind is not None:
            segs.append(segment(kind, value))
    body = b'\x01'.join(s for s, _ in segs) + b'\x00'
    return body + b''.join(varint(len(s) << 3 | t) for s, t in segs)

def looks_typed(s):
    import re
    return (re.fullmatch(r'0|-?[1-9][0-9]*', s) or re.fullmatch(r'[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}', s)
            or s.startswith('~'))

def text(components):
    out = ''
    for ns, kind, value in components:
        out += '/' + ns
        if kind is None: continue
        out += '-'
        if kind == 'int': out += str(value)
        elif kind == 'uuid': out += str(uuid.UUID(value))
        elif kind == 'bytes': out += '~' + base64.urlsafe_b64encode(value).decode().rstrip('=')
        else:
            amb = looks_typed(value)
            for i, ch in enumerate(value):
                if ch == '/': out += '%/'
                elif ch == '%': out += '%%'
                elif ord(ch) < 0x20 or ord(ch) == 0x7F: out += '%%%02X' % ord(ch)
                elif i == 0 and amb: out += '%%%02X' % ord(ch)
                else: out += ch
    return out or '/'

U = '4c9d36e5-6b19-4e6a-828c-226ed667458a'
cases = [
    [],
    [('user', 'uuid', U), ('post', 'int', 1234), ('comment', 'int', 1678901234), ('react', 'int', 42)],
    [('user', 'int', 1), ('post', None, None)],
    [('a', 'int', 0)], [('a', 'int', -1)], [('a', 'int', -257)], [('a', 'int', 2**64 - 1)], [('a', 'int', -(2**64 - 1))],
    [('a', 'str', '')], [('a', 'str', 'ab')], [('a', 'str', 'a\x00b')], [('a', 'str', '\x01')], [('a', 'str', '\x10\x11')],
    [('a', 'str', '1234')], [('a', 'str', '~x')], [('a', 'str', 'x/y%z')], [('a', 'str', 'é😀')], [('a', 'str', U)],
    [('a', 'str', '-0')], [('a', 'str', 'x-y')],
    [('a', 'bytes', b'')], [('a', 'bytes', b'\x00\x01\xff')], [('a', 'bytes', bytes(range(0, 20)))],
    [('a', 'uuid', '00000000-0000-0000-0000-000000000000')], [('a', 'uuid', 'ffffffff-ffff-ffff-ffff-ffffffffffff')],
    [('a', None, None)], [('Under_score', 'int', 7), ('b', 'str', 'c')],
    [('a', 'str', 'x' * 200)],
]
print('# canonical text<TAB>hex of the binary form; written by path_reference.py, an independent encoder')
for c in cases:
    print(text(c) + '\t' + encode(c).hex())
