
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'statectl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'statectl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'statectl' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List resource instances, one address a line, as `terraform state list` does')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one resource instance, sensitive values masked')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on')
            [CompletionResult]::new('summary', 'summary', [CompletionResultType]::ParameterValue, 'Count resources and instances by type, module, provider and status')
            [CompletionResult]::new('taint', 'taint', [CompletionResultType]::ParameterValue, 'Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules')
            [CompletionResult]::new('untaint', 'untaint', [CompletionResultType]::ParameterValue, 'Clear an instance''s taint, as `terraform untaint`')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched')
            [CompletionResult]::new('refresh', 'refresh', [CompletionResultType]::ParameterValue, 'Ask the providers'' APIs about stale instances; show outcomes and the diff; `--write` applies it')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Hold the state lock (Terraform-compatible) while a command runs; exits with its code')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when they differ')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3 when a rule is violated')
            [CompletionResult]::new('drift', 'drift', [CompletionResultType]::ParameterValue, 'Read every managed instance through its provider plugin and report what changed outside Terraform; never writes; exit 1 on drift')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'The versions the state''s backend keeps (S3 object versions, local backups), newest first, with what changed from the version before')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Make an earlier version the current state: under the lock, lineage checked, serial raised above the current one, the current state backed up (and kept as a version)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'statectl;list' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only instances of this resource type (repeatable)')
            [CompletionResult]::new('--module', '--module', [CompletionResultType]::ParameterName, 'Only instances in this module or below it (`module.app`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the instances')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--tainted', '--tainted', [CompletionResultType]::ParameterName, 'Only instances whose current object is tainted')
            [CompletionResult]::new('--deposed', '--deposed', [CompletionResultType]::ParameterName, 'Only instances that have deposed objects')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;show' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('--deposed', '--deposed', [CompletionResultType]::ParameterName, 'Show this deposed object instead of the current one')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the instance')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;query' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values instead of masking them')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'Print the result on one line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;scan' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--include', '--include', [CompletionResultType]::ParameterName, 'With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are always skipped')
            [CompletionResult]::new('--max-pages', '--max-pages', [CompletionResultType]::ParameterName, 'With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a listing still going after that is an error rather than followed for ever')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state')
            [CompletionResult]::new('--parallelism', '--parallelism', [CompletionResultType]::ParameterName, 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state')
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'A rules file (TOML). Default: `.statectl.toml` in the working directory or the nearest folder above')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the findings')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a finding reaches this severity')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--data-sources', '--data-sources', [CompletionResultType]::ParameterName, 'Also scan data sources (skipped by default: they hold no remote object to fix)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;summary' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--include', '--include', [CompletionResultType]::ParameterName, 'With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are always skipped')
            [CompletionResult]::new('--max-pages', '--max-pages', [CompletionResultType]::ParameterName, 'With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a listing still going after that is an error rather than followed for ever')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state')
            [CompletionResult]::new('--parallelism', '--parallelism', [CompletionResultType]::ParameterName, 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the counts')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;taint' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and write nothing (exit 1 when something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even when lifecycle rules refuse the change; each override is printed')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values in the diff instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;untaint' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and write nothing (exit 1 when something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even when lifecycle rules refuse the change; each override is printed')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values in the diff instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;forget' {
            [CompletionResult]::new('--deposed', '--deposed', [CompletionResultType]::ParameterName, 'Remove only this deposed object of the instance (its remote object stays, unmanaged)')
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'The state: a file, `-` for standard input, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform''s workspace...), in the selected workspace')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and write nothing (exit 1 when something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even when lifecycle rules refuse the change; each override is printed')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values in the diff instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;rm' {
            [CompletionResult]::new('--deposed', '--deposed', [CompletionResultType]::ParameterName, 'Remove only this deposed object of the instance (its remote object stays, unmanaged)')
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'The state: a file, `-` for standard input, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform''s workspace...), in the selected workspace')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and write nothing (exit 1 when something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even when lifecycle rules refuse the change; each override is printed')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values in the diff instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;refresh' {
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Only these instances (addresses as `terraform state list` takes them, or globs); repeatable. Default: the stale instances `statectl scan` finds')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only instances of these resource types (globs allowed); repeatable')
            [CompletionResult]::new('--profiles', '--profiles', [CompletionResultType]::ParameterName, 'A profiles file (TOML) over the built-in ones (`--profiles-format` prints the format)')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'A profile endpoint''s base URL, e.g. `oci=https://iaas.eu-frankfurt-1.oraclecloud.com`; repeatable. Also `STATECTL_ENDPOINT_<NAME>`')
            [CompletionResult]::new('--parallelism', '--parallelism', [CompletionResultType]::ParameterName, 'How many instances are polled at once')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for each instance at most (overrides the profiles'' `timeout`)')
            [CompletionResult]::new('--start-timeout', '--start-timeout', [CompletionResultType]::ParameterName, 'How long a provider plugin may take to start (`--reader plugin`): its handshake, and each of its schema and configuration calls before the first read')
            [CompletionResult]::new('--reader', '--reader', [CompletionResultType]::ParameterName, 'How instances are asked about: `http` (the provider profiles; the default) or `plugin` (the provider plugin `terraform init` installed, read as `terraform apply -refresh-only` would); for the run, or per provider as NAME=READER (`aws=plugin`); repeatable')
            [CompletionResult]::new('--plugin-dir', '--plugin-dir', [CompletionResultType]::ParameterName, 'Where provider plugins are, instead of `.terraform/providers` under --config (or the working directory); repeatable')
            [CompletionResult]::new('--provider-config', '--provider-config', [CompletionResultType]::ParameterName, 'A provider configuration''s arguments, a JSON object laid over the literal ones of its `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the outcomes (JSON leaves the diff out)')
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Apply what was learned to the state (lifecycle rules, lock, backup, crash-safe write), or with `-o -` write the refreshed state to standard output (the outcomes and the diff then go to stderr)')
            [CompletionResult]::new('--untaint-healthy', '--untaint-healthy', [CompletionResultType]::ParameterName, 'Clear the taint of a tainted instance whose remote object the provider reports healthy (reconciled), in the same locked write, so the next apply keeps it instead of replacing it. Off by default: a taint may also be deliberate')
            [CompletionResult]::new('--profiles-format', '--profiles-format', [CompletionResultType]::ParameterName, 'Print the profile format (how to write a `--profiles` file, with examples) and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and write nothing (exit 1 when something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even when lifecycle rules refuse the change; each override is printed')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values in the diff instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;lock' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the lock (e.g. `30s`)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;diff' {
            [CompletionResult]::new('--old-version', '--old-version', [CompletionResultType]::ParameterName, 'Compare this earlier version of OLD (an id `statectl history` prints, or `~N`)')
            [CompletionResult]::new('--new-version', '--new-version', [CompletionResultType]::ParameterName, 'Compare this earlier version of NEW (default: NEW''s current state)')
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the differences')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--stat', '--stat', [CompletionResultType]::ParameterName, 'One line per changed object saying what changed in it, then the totals')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;audit' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('--plan', '--plan', [CompletionResultType]::ParameterName, 'A plan as `terraform show -json PLANFILE` (or `tofu show -json`) prints it: audit what it does instead of a destroy of everything')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the audit')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a finding reaches this severity (violations always exit 3)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;drift' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Only these instances (addresses as `terraform state list` takes them, or globs); repeatable. Default: every managed instance')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only instances of these resource types (globs allowed); repeatable')
            [CompletionResult]::new('--module', '--module', [CompletionResultType]::ParameterName, 'Only instances in these modules or below them (`module.net`, globs allowed); repeatable')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Not drift: changes at this attribute path (or below it) of this resource type, globs in both parts (`aws_instance.tags.LastScanned`, `*.tags_all.*`); repeatable. `[[drift.ignore]]` in `.statectl.toml` adds more, each with its reason')
            [CompletionResult]::new('--parallelism', '--parallelism', [CompletionResultType]::ParameterName, 'How many instances are read at once, over all providers (and remote states fetched at once)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long one instance''s read may take at most')
            [CompletionResult]::new('--start-timeout', '--start-timeout', [CompletionResultType]::ParameterName, 'How long a provider plugin may take to start: its handshake, and each of its schema and configuration calls before the first read')
            [CompletionResult]::new('--plugin-dir', '--plugin-dir', [CompletionResultType]::ParameterName, 'Where provider plugins are, instead of `.terraform/providers` under --config (or the working directory); repeatable')
            [CompletionResult]::new('--provider-config', '--provider-config', [CompletionResultType]::ParameterName, 'A provider configuration''s arguments, a JSON object laid over the literal ones of its `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long `--lock` waits for the lock, as Terraform''s `-lock-timeout` (e.g. `30s`)')
            [CompletionResult]::new('--max-pages', '--max-pages', [CompletionResultType]::ParameterName, 'With `--workspace GLOB` (`''*''`, `''prod-*''`): the most pages of the backend''s workspace listing to read (1,000 names a page on S3, GCS and OCI, 100 workspaces on HCP Terraform); a listing still going after that is an error rather than followed for ever')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the report')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--all-changes', '--all-changes', [CompletionResultType]::ParameterName, 'Report every change the read shows, as `terraform plan -refresh-only` does: no noise rules (by default changes in attributes only the provider sets, and null <-> empty collections, are counted, not reported); ignores still apply')
            [CompletionResult]::new('--lock', '--lock', [CompletionResultType]::ParameterName, 'Hold the state''s lock while reading (Terraform-compatible). Off by default: drift never writes, and a lock would block an apply meanwhile')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;history' {
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show the newest N versions (each is read to tell its serial and changes); `0` shows all')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print the versions')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'statectl;restore' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'The version to make current: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one')
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`')
            [CompletionResult]::new('--backend-config', '--backend-config', [CompletionResultType]::ParameterName, 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change and write nothing (exit 1 when something would change)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even when lifecycle rules refuse the change; each override is printed')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values in the diff instead of masking them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List resource instances, one address a line, as `terraform state list` does')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one resource instance, sensitive values masked')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on')
            [CompletionResult]::new('summary', 'summary', [CompletionResultType]::ParameterValue, 'Count resources and instances by type, module, provider and status')
            [CompletionResult]::new('taint', 'taint', [CompletionResultType]::ParameterValue, 'Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules')
            [CompletionResult]::new('untaint', 'untaint', [CompletionResultType]::ParameterValue, 'Clear an instance''s taint, as `terraform untaint`')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched')
            [CompletionResult]::new('refresh', 'refresh', [CompletionResultType]::ParameterValue, 'Ask the providers'' APIs about stale instances; show outcomes and the diff; `--write` applies it')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Hold the state lock (Terraform-compatible) while a command runs; exits with its code')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when they differ')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3 when a rule is violated')
            [CompletionResult]::new('drift', 'drift', [CompletionResultType]::ParameterValue, 'Read every managed instance through its provider plugin and report what changed outside Terraform; never writes; exit 1 on drift')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'The versions the state''s backend keeps (S3 object versions, local backups), newest first, with what changed from the version before')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Make an earlier version the current state: under the lock, lineage checked, serial raised above the current one, the current state backed up (and kept as a version)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'statectl;help;list' {
            break
        }
        'statectl;help;show' {
            break
        }
        'statectl;help;query' {
            break
        }
        'statectl;help;scan' {
            break
        }
        'statectl;help;summary' {
            break
        }
        'statectl;help;taint' {
            break
        }
        'statectl;help;untaint' {
            break
        }
        'statectl;help;forget' {
            break
        }
        'statectl;help;refresh' {
            break
        }
        'statectl;help;lock' {
            break
        }
        'statectl;help;diff' {
            break
        }
        'statectl;help;audit' {
            break
        }
        'statectl;help;drift' {
            break
        }
        'statectl;help;history' {
            break
        }
        'statectl;help;restore' {
            break
        }
        'statectl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
