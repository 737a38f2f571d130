#!/usr/bin/env python3
"""Fails on a broken link in the README, ARCHITECTURE.md or docs/: a relative link to a file
that is not there, or to a heading (#anchor, GitHub's slug) its page does not have."""
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
def slug(t):
    s=t.strip().lower(); s=re.sub(r'[^\w\- ]','',s); return s.replace(' ','-')
def anchors(p):
    return {slug(m.group(2)) for m in re.finditer(r'^(#{1,6}) (.*)$', p.read_text(), re.M)}
bad=0
for f in [root/'README.md', root/'ARCHITECTURE.md', *sorted((root/'docs').glob('*.md'))]:
    text=f.read_text()
    text=re.sub(r'```.*?```','',text,flags=re.S)
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        link=m.group(1)
        if link.startswith(('http://','https://','mailto:')): continue
        path,_,frag=link.partition('#')
        target=(f.parent/path).resolve() if path else f
        if not target.exists():
            print(f"{f.relative_to(root)}: missing {link}"); bad+=1; continue
        if frag and target.suffix=='.md' and frag not in anchors(target):
            print(f"{f.relative_to(root)}: no anchor {link}"); bad+=1
sys.exit(1 if bad else 0)
