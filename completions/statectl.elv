
use builtin;
use str;

set edit:completion:arg-completer[statectl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'statectl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'statectl'= {
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List resource instances, one address a line, as `terraform state list` does'
            cand show 'Show one resource instance, sensitive values masked'
            cand query 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array'
            cand scan 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on'
            cand summary 'Count resources and instances by type, module, provider and status'
            cand taint 'Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules'
            cand untaint 'Clear an instance''s taint, as `terraform untaint`'
            cand forget 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched'
            cand rm 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched'
            cand refresh 'Ask the providers'' APIs about stale instances; show outcomes and the diff; `--write` applies it'
            cand lock 'Hold the state lock (Terraform-compatible) while a command runs; exits with its code'
            cand diff 'Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when they differ'
            cand audit 'Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3 when a rule is violated'
            cand history 'The versions the state''s backend keeps (S3 object versions, local backups), newest first, with what changed from the version before'
            cand restore 'Make an earlier version the current state: under the lock, lineage checked, serial raised above the current one, the current state backed up (and kept as a version)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'statectl;list'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --version 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand --type 'Only instances of this resource type (repeatable)'
            cand --module 'Only instances in this module or below it (`module.app`)'
            cand --format 'How to print the instances'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --tainted 'Only instances whose current object is tainted'
            cand --deposed 'Only instances that have deposed objects'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;show'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --version 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand --deposed 'Show this deposed object instead of the current one'
            cand --format 'How to print the instance'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --show-sensitive 'Show sensitive values instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;query'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --version 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --show-sensitive 'Show sensitive values instead of masking them'
            cand --compact 'Print the result on one line'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;scan'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --include 'With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match'
            cand --exclude 'With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are always skipped'
            cand --max-pages 'With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a listing still going after that is an error rather than followed for ever'
            cand --version 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand -j 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state'
            cand --jobs 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state'
            cand --parallelism 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state'
            cand --rules 'A rules file (TOML). Default: `.statectl.toml` in the working directory or the nearest folder above'
            cand --format 'How to print the findings'
            cand --fail-on 'Exit 1 when a finding reaches this severity'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --data-sources 'Also scan data sources (skipped by default: they hold no remote object to fix)'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;summary'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --include 'With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match'
            cand --exclude 'With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are always skipped'
            cand --max-pages 'With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a listing still going after that is an error rather than followed for ever'
            cand --version 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand -j 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state'
            cand --jobs 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state'
            cand --parallelism 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state'
            cand --format 'How to print the counts'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;taint'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --lock-timeout 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)'
            cand --backup 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes'
            cand -o 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --output 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --dry-run 'Show what would change and write nothing (exit 1 when something would change)'
            cand --force 'Write even when lifecycle rules refuse the change; each override is printed'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand --show-sensitive 'Show sensitive values in the diff instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;untaint'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --lock-timeout 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)'
            cand --backup 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes'
            cand -o 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --output 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --dry-run 'Show what would change and write nothing (exit 1 when something would change)'
            cand --force 'Write even when lifecycle rules refuse the change; each override is printed'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand --show-sensitive 'Show sensitive values in the diff instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;forget'= {
            cand --deposed 'Remove only this deposed object of the instance (its remote object stays, unmanaged)'
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --lock-timeout 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)'
            cand --backup 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes'
            cand -o 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --output 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --state 'The state: a file, `-` for standard input, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform''s workspace...), in the selected workspace'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --dry-run 'Show what would change and write nothing (exit 1 when something would change)'
            cand --force 'Write even when lifecycle rules refuse the change; each override is printed'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand --show-sensitive 'Show sensitive values in the diff instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;rm'= {
            cand --deposed 'Remove only this deposed object of the instance (its remote object stays, unmanaged)'
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --lock-timeout 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)'
            cand --backup 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes'
            cand -o 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --output 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --state 'The state: a file, `-` for standard input, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform''s workspace...), in the selected workspace'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --dry-run 'Show what would change and write nothing (exit 1 when something would change)'
            cand --force 'Write even when lifecycle rules refuse the change; each override is printed'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand --show-sensitive 'Show sensitive values in the diff instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;refresh'= {
            cand --target 'Only these instances (addresses as `terraform state list` takes them, or globs); repeatable. Default: the stale instances `statectl scan` finds'
            cand --type 'Only instances of these resource types (globs allowed); repeatable'
            cand --profiles 'A profiles file (TOML) over the built-in ones (`--profiles-format` prints the format)'
            cand --endpoint 'A profile endpoint''s base URL, e.g. `oci=https://iaas.eu-frankfurt-1.oraclecloud.com`; repeatable. Also `STATECTL_ENDPOINT_<NAME>`'
            cand --parallelism 'How many instances are polled at once'
            cand --timeout 'How long to wait for each instance at most (overrides the profiles'' `timeout`)'
            cand --start-timeout 'How long a provider plugin may take to start (`--reader plugin`): its handshake, and each of its schema and configuration calls before the first read'
            cand --reader 'How instances are asked about: `http` (the provider profiles; the default) or `plugin` (the provider plugin `terraform init` installed, read as `terraform apply -refresh-only` would); for the run, or per provider as NAME=READER (`aws=plugin`); repeatable'
            cand --plugin-dir 'Where provider plugins are, instead of `.terraform/providers` under --config (or the working directory); repeatable'
            cand --provider-config 'A provider configuration''s arguments, a JSON object laid over the literal ones of its `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable'
            cand --format 'How to print the outcomes (JSON leaves the diff out)'
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --lock-timeout 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)'
            cand --backup 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes'
            cand -o 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --output 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --write 'Apply what was learned to the state (lifecycle rules, lock, backup, crash-safe write), or with `-o -` write the refreshed state to standard output (the outcomes and the diff then go to stderr)'
            cand --untaint-healthy 'Clear the taint of a tainted instance whose remote object the provider reports healthy (reconciled), in the same locked write, so the next apply keeps it instead of replacing it. Off by default: a taint may also be deliberate'
            cand --profiles-format 'Print the profile format (how to write a `--profiles` file, with examples) and exit'
            cand --dry-run 'Show what would change and write nothing (exit 1 when something would change)'
            cand --force 'Write even when lifecycle rules refuse the change; each override is printed'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand --show-sensitive 'Show sensitive values in the diff instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;lock'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --lock-timeout 'How long to wait for the lock (e.g. `30s`)'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;diff'= {
            cand --old-version 'Compare this earlier version of OLD (an id `statectl history` prints, or `~N`)'
            cand --new-version 'Compare this earlier version of NEW (default: NEW''s current state)'
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --format 'How to print the differences'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --stat 'One line per changed object saying what changed in it, then the totals'
            cand --show-sensitive 'Show sensitive values instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;audit'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --version 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand --plan 'A plan as `terraform show -json PLANFILE` (or `tofu show -json`) prints it: audit what it does instead of a destroy of everything'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --format 'How to print the audit'
            cand --fail-on 'Exit 1 when a finding reaches this severity (violations always exit 3)'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;history'= {
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --limit 'Show the newest N versions (each is read to tell its serial and changes); `0` shows all'
            cand --format 'How to print the versions'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'statectl;restore'= {
            cand --version 'The version to make current: an id `statectl history` prints (an S3 version id, a backup''s file name), or `~N` for N versions before the current one'
            cand --workspace 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`'
            cand --backend-config 'A backend setting over those `terraform init` recorded (or a URL''s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win'
            cand --config 'The root module''s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)'
            cand --var 'A value for a variable the configuration''s encryption block uses, as `tofu -var`; repeatable; later ones win'
            cand --var-file 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it'
            cand --lock-timeout 'How long to wait for the state lock, as Terraform''s `-lock-timeout` (e.g. `30s`, `2m`)'
            cand --backup 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes'
            cand -o 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --output 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup'
            cand --policy 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory'
            cand --color 'When to color output: auto (a terminal without NO_COLOR), always, never'
            cand --dry-run 'Show what would change and write nothing (exit 1 when something would change)'
            cand --force 'Write even when lifecycle rules refuse the change; each override is printed'
            cand --no-config 'Do not apply the configuration''s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
            cand --show-sensitive 'Show sensitive values in the diff instead of masking them'
            cand -v 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand --verbose 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
            cand -q 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand --quiet 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'statectl;help'= {
            cand list 'List resource instances, one address a line, as `terraform state list` does'
            cand show 'Show one resource instance, sensitive values masked'
            cand query 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array'
            cand scan 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on'
            cand summary 'Count resources and instances by type, module, provider and status'
            cand taint 'Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules'
            cand untaint 'Clear an instance''s taint, as `terraform untaint`'
            cand forget 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched'
            cand refresh 'Ask the providers'' APIs about stale instances; show outcomes and the diff; `--write` applies it'
            cand lock 'Hold the state lock (Terraform-compatible) while a command runs; exits with its code'
            cand diff 'Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when they differ'
            cand audit 'Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3 when a rule is violated'
            cand history 'The versions the state''s backend keeps (S3 object versions, local backups), newest first, with what changed from the version before'
            cand restore 'Make an earlier version the current state: under the lock, lineage checked, serial raised above the current one, the current state backed up (and kept as a version)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'statectl;help;list'= {
        }
        &'statectl;help;show'= {
        }
        &'statectl;help;query'= {
        }
        &'statectl;help;scan'= {
        }
        &'statectl;help;summary'= {
        }
        &'statectl;help;taint'= {
        }
        &'statectl;help;untaint'= {
        }
        &'statectl;help;forget'= {
        }
        &'statectl;help;refresh'= {
        }
        &'statectl;help;lock'= {
        }
        &'statectl;help;diff'= {
        }
        &'statectl;help;audit'= {
        }
        &'statectl;help;history'= {
        }
        &'statectl;help;restore'= {
        }
        &'statectl;help;help'= {
        }
    ]
    $completions[$command]
}
