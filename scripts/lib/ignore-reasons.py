# Every ```rust,ignore block of the book (default src/; scripts/test passes book/markdown, where
# included files such as labs' hints.md are expanded) must be followed by a parenthetical reason, e.g.
# "(From labs/NN/tests/x.rs, …)": an ignored block is not compiled, so the reader is told why.
# Run by scripts/test.
import re,glob,sys
bad=[]
root = sys.argv[1] if len(sys.argv) > 1 else 'src'
for f in sorted(glob.glob(root + '/**/*.md', recursive=True)):
    lines=open(f).read().split('\n')
    i=0
    while i<len(lines):
        if re.match(r'^\s*```rust,?.*\bignore\b',lines[i]):
            j=i+1
            while j<len(lines) and not lines[j].strip().startswith('```'): j+=1
            k=j+1
            while k<len(lines) and not lines[k].strip(): k+=1
            nxt=lines[k].strip() if k<len(lines) else ''
            if not (nxt.startswith('(') or nxt.startswith('*(')):
                bad.append(f"{f}:{i+1}: {lines[i+1].strip()[:80]}")
            i=j
        i+=1
for b in bad: print(b)
print(f"{len(bad)} ignore blocks without a reason right after them", file=sys.stderr)
sys.exit(1 if bad else 0)
