"""A corpus of varied shell commands for `check_bench.py`: the day of an agent that does more than git.

    commands(count)    COUNT command lines, none the same, from the templates below

Each template is a command of some tool an agent runs (cloud and cluster CLIs, package managers,
test runners, file tools, search, archives, network, git), with `{n}` standing for a number that
makes each line its own (a resource name, a path, a count). The mix leans the way agents' calls do:
mostly reading and building, some git, a little that writes or deletes, few that any rule denies.
Written for this project; deterministic (the same COUNT gives the same lines).
"""

from __future__ import annotations

TEMPLATES = (
    # reading files and the tree
    "ls -la src/module_{n}",
    "cat docs/notes-{n}.md",
    "head -n 40 logs/run-{n}.log",
    "tail -n 100 logs/server-{n}.log | grep -i error",
    "wc -l src/pkg_{n}/*.py",
    "find . -name '*.rs' -path '*/crate_{n}/*' -type f",
    "find src -newer build/stamp-{n} -name '*.ts'",
    "grep -rn 'TODO({n})' src/",
    "rg --type py 'def handler_{n}' src",
    "rg -l 'Config{n}' --glob '!vendor'",
    "sed -n '{n},+20p' src/parser.py",
    "awk -F, 'NR>1 {{sum+=${n}}} END {{print sum}}' data/table.csv",
    "jq '.items[{n}].metadata.name' out/list.json",
    "diff -u old/config_{n}.yaml new/config_{n}.yaml",
    "stat -c '%s %n' dist/bundle-{n}.js",
    "du -sh target/debug/deps/lib{n}*",
    "tree -L 2 services/svc-{n}",
    "file assets/image-{n}.png",
    "xxd -l 64 build/blob-{n}.bin",
    "sort -u reports/ids-{n}.txt | wc -l",
    # building and testing
    "cargo test -p crate_{n} --lib",
    "cargo build --release --bin tool-{n} 2>&1 | tail -20",
    "npm run test -- --testPathPattern=feature{n}",
    "npx tsc --noEmit -p packages/pkg-{n}",
    "pnpm --filter app-{n} build",
    "python -m pytest tests/test_case_{n}.py -x -q",
    "pytest -k 'scenario_{n} and not slow' --maxfail=1",
    "uv run ruff check src/module_{n}.py",
    "go test ./internal/pkg{n}/... -run TestHandler{n}",
    "make -C build target-{n} -j4",
    "mvn -q -pl module-{n} test",
    "gradle :lib{n}:test --offline",
    "bundle exec rspec spec/models/model_{n}_spec.rb",
    "dotnet test tests/Project{n}.Tests --no-build",
    # packages
    "pip install 'package-{n}==1.{n}.0'",
    "npm install --save-dev @scope/plugin-{n}",
    "cargo add serde --features derive -p crate_{n}",
    "uv add 'httpx>=0.{n}'",
    "brew info formula-{n}",
    # cloud and clusters
    "aws s3 ls s3://bucket-{n}/exports/",
    "aws ec2 describe-instances --instance-ids i-0{n}abc --output table",
    "aws logs tail /aws/lambda/fn-{n} --since 10m",
    "gcloud compute instances list --filter='name~vm-{n}'",
    "gcloud logging read 'resource.labels.service_name=svc-{n}' --limit 20",
    "az vm show -g group-{n} -n vm-{n} --query powerState",
    "kubectl get pods -n team-{n} -o wide",
    "kubectl logs deploy/api-{n} -n prod --tail=200",
    "kubectl describe svc web-{n} -n staging",
    "helm status release-{n} -n apps",
    "terraform plan -target=module.service_{n} -out=plan-{n}.tfplan",
    "docker ps --filter name=worker-{n}",
    "docker logs --tail 50 container-{n}",
    "docker build -t app:{n} -f docker/Dockerfile.{n} .",
    "gh pr view {n} --json title,state,mergeable",
    "gh run list --workflow ci.yml --limit {n}",
    "gh issue list --label bug --limit {n}",
    # network
    "curl -s https://api.example.com/v1/items/{n} | jq .",
    "curl -fsSL -o /tmp/asset-{n}.tar.gz https://example.com/releases/{n}.tar.gz",
    "wget -q https://example.com/data/file-{n}.csv -O data/file-{n}.csv",
    "dig +short host-{n}.example.com",
    # archives and files written
    "tar -czf backup-{n}.tgz reports/week-{n}",
    "unzip -o downloads/pkg-{n}.zip -d vendor/pkg-{n}",
    "mkdir -p build/out-{n} && cp dist/app-{n}.js build/out-{n}/",
    "mv tmp/result-{n}.json results/",
    "rm -rf build/cache-{n}",
    "touch src/generated/stub_{n}.py",
    "echo 'value={n}' > config/local-{n}.env",
    "printf '%s\\n' line-{n} >> notes/todo.txt",
    "chmod +x scripts/run-{n}.sh",
    "ln -sf ../shared/lib-{n}.so lib/current.so",
    # scripts and interpreters
    "python3 scripts/migrate_{n}.py --dry-run",
    "python3 -c 'import json; print(json.load(open(\"data/{n}.json\"))[\"count\"])'",
    "node scripts/report-{n}.js --format md",
    "bash scripts/check-{n}.sh",
    "./gradlew :service{n}:run --args='--port 80{n}'",
    # git (reading, mostly)
    "git log --oneline -{n}",
    "git show HEAD~{n} --stat",
    "git diff HEAD~{n} -- src/ | head -100",
    "git blame -L {n},+10 src/main.rs",
    "git switch -c feature/task-{n}",
    "git add src/feature_{n}.py tests/test_feature_{n}.py",
    "git commit -m 'Handle case {n} in the parser'",
    "git stash push -m 'wip {n}'",
    "git fetch origin pull/{n}/head:pr-{n}",
    "git branch -d merged-{n}",
    "git rebase origin/main topic-{n}",
    "git push origin feature/task-{n}",
)


def commands(count: int) -> list[str]:
    """COUNT command lines, each different: the templates in turn, each with its own number."""
    return [TEMPLATES[i % len(TEMPLATES)].format(n=i // len(TEMPLATES) + 1) for i in range(count)]
