# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_statectl_global_optspecs
    string join \n color= v/verbose q/quiet h/help V/version
end

function __fish_statectl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_statectl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_statectl_using_subcommand
    set -l cmd (__fish_statectl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c statectl -n "__fish_statectl_needs_command" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_needs_command" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_needs_command" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_needs_command" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_needs_command" -s V -l version -d 'Print version'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "list" -d 'List resource instances, one address a line, as `terraform state list` does'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "show" -d 'Show one resource instance, sensitive values masked'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "query" -d 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "scan" -d 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "summary" -d 'Count resources and instances by type, module, provider and status'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "taint" -d 'Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "untaint" -d 'Clear an instance\'s taint, as `terraform untaint`'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "forget" -d 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "rm" -d 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "refresh" -d 'Ask the providers\' APIs about stale instances; show outcomes and the diff; `--write` applies it'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "lock" -d 'Hold the state lock (Terraform-compatible) while a command runs; exits with its code'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "diff" -d 'Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when they differ'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "audit" -d 'Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3 when a rule is violated'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "drift" -d 'Read every managed instance through its provider plugin and report what changed outside Terraform; never writes; exit 1 on drift'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "history" -d 'The versions the state\'s backend keeps (S3 object versions, local backups), newest first, with what changed from the version before'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "restore" -d 'Make an earlier version the current state: under the lock, lineage checked, serial raised above the current one, the current state backed up (and kept as a version)'
complete -c statectl -n "__fish_statectl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c statectl -n "__fish_statectl_using_subcommand list" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand list" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand list" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand list" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand list" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand list" -l version -d 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand list" -l type -d 'Only instances of this resource type (repeatable)' -r
complete -c statectl -n "__fish_statectl_using_subcommand list" -l module -d 'Only instances in this module or below it (`module.app`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand list" -l format -d 'How to print the instances' -r -f -a "text\t'For people: lines and tables (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'"
complete -c statectl -n "__fish_statectl_using_subcommand list" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand list" -l tainted -d 'Only instances whose current object is tainted'
complete -c statectl -n "__fish_statectl_using_subcommand list" -l deposed -d 'Only instances that have deposed objects'
complete -c statectl -n "__fish_statectl_using_subcommand list" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand list" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand show" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand show" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand show" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand show" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand show" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand show" -l version -d 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand show" -l deposed -d 'Show this deposed object instead of the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand show" -l format -d 'How to print the instance' -r -f -a "text\t'For people: lines and tables (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'"
complete -c statectl -n "__fish_statectl_using_subcommand show" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand show" -l show-sensitive -d 'Show sensitive values instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand show" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand show" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand query" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand query" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand query" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand query" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand query" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand query" -l version -d 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand query" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand query" -l show-sensitive -d 'Show sensitive values instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand query" -l compact -d 'Print the result on one line'
complete -c statectl -n "__fish_statectl_using_subcommand query" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand query" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand query" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l include -d 'With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l exclude -d 'With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are always skipped' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l max-pages -d 'With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a listing still going after that is an error rather than followed for ever' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l version -d 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -s j -l jobs -l parallelism -d 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state' -r
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l rules -d 'A rules file (TOML). Default: `.statectl.toml` in the working directory or the nearest folder above' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l format -d 'How to print the findings' -r -f -a "text\t'For people: findings grouped per state, hints on stderr (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'
sarif\t'SARIF 2.1.0, for code scanning'
github\t'GitHub Actions annotations'
gitlab\t'GitLab Code Quality, for findings in merge requests'
junit\t'JUnit XML, for a CI\'s test report'
markdown\t'Markdown, for a pull-request comment or a job summary (within GitHub\'s 65,536 characters)'"
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l fail-on -d 'Exit 1 when a finding reaches this severity' -r -f -a "error\t''
warning\t''
note\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand scan" -l data-sources -d 'Also scan data sources (skipped by default: they hold no remote object to fix)'
complete -c statectl -n "__fish_statectl_using_subcommand scan" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand scan" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l include -d 'With a prefix URL (`s3://bucket/prefix/`, `gs://bucket/prefix/`...): only the keys this glob matches (`*` within a path segment, `**` across them, e.g. `**/prod/*.tfstate`). Repeatable: any may match' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l exclude -d 'With a prefix URL: skip the keys this glob matches. Repeatable. Lock objects (`*.tflock`) are always skipped' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l max-pages -d 'With a prefix URL: the most pages of keys to list (1,000 keys a page on S3, GCS and OCI); a listing still going after that is an error rather than followed for ever' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l version -d 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -s j -l jobs -l parallelism -d 'How many states to read at once (default: the number of CPUs; remote states wait on the network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which counts the instances of one state' -r
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l format -d 'How to print the counts' -r -f -a "text\t'For people: lines and tables (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'"
complete -c statectl -n "__fish_statectl_using_subcommand summary" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand summary" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand summary" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand summary" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l lock-timeout -d 'How long to wait for the state lock, as Terraform\'s `-lock-timeout` (e.g. `30s`, `2m`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l backup -d 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand taint" -s o -l output -d 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup' -r
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l dry-run -d 'Show what would change and write nothing (exit 1 when something would change)'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l force -d 'Write even when lifecycle rules refuse the change; each override is printed'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -l show-sensitive -d 'Show sensitive values in the diff instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand taint" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l lock-timeout -d 'How long to wait for the state lock, as Terraform\'s `-lock-timeout` (e.g. `30s`, `2m`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l backup -d 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -s o -l output -d 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup' -r
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l dry-run -d 'Show what would change and write nothing (exit 1 when something would change)'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l force -d 'Write even when lifecycle rules refuse the change; each override is printed'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -l show-sensitive -d 'Show sensitive values in the diff instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand untaint" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l deposed -d 'Remove only this deposed object of the instance (its remote object stays, unmanaged)' -r
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l lock-timeout -d 'How long to wait for the state lock, as Terraform\'s `-lock-timeout` (e.g. `30s`, `2m`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l backup -d 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand forget" -s o -l output -d 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup' -r
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l state -d 'The state: a file, `-` for standard input, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform\'s workspace...), in the selected workspace' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l dry-run -d 'Show what would change and write nothing (exit 1 when something would change)'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l force -d 'Write even when lifecycle rules refuse the change; each override is printed'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -l show-sensitive -d 'Show sensitive values in the diff instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand forget" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l deposed -d 'Remove only this deposed object of the instance (its remote object stays, unmanaged)' -r
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l lock-timeout -d 'How long to wait for the state lock, as Terraform\'s `-lock-timeout` (e.g. `30s`, `2m`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l backup -d 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand rm" -s o -l output -d 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup' -r
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l state -d 'The state: a file, `-` for standard input, or a URL (`s3://bucket/key`, `gs://bucket/prefix/default.tfstate`, `azurerm://account/container/blob`, `oci://namespace/bucket/object`, `https://...` for the http backend). Default: the state of the backend `terraform init` recorded here (local: `terraform.tfstate`, HCP Terraform\'s workspace...), in the selected workspace' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l dry-run -d 'Show what would change and write nothing (exit 1 when something would change)'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l force -d 'Write even when lifecycle rules refuse the change; each override is printed'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -l show-sensitive -d 'Show sensitive values in the diff instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand rm" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l target -d 'Only these instances (addresses as `terraform state list` takes them, or globs); repeatable. Default: the stale instances `statectl scan` finds' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l type -d 'Only instances of these resource types (globs allowed); repeatable' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l profiles -d 'A profiles file (TOML) over the built-in ones (`--profiles-format` prints the format)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l endpoint -d 'A profile endpoint\'s base URL, e.g. `oci=https://iaas.eu-frankfurt-1.oraclecloud.com`; repeatable. Also `STATECTL_ENDPOINT_<NAME>`' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l parallelism -d 'How many instances are polled at once' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l timeout -d 'How long to wait for each instance at most (overrides the profiles\' `timeout`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l start-timeout -d 'How long a provider plugin may take to start (`--reader plugin`): its handshake, and each of its schema and configuration calls before the first read' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l reader -d 'How instances are asked about: `http` (the provider profiles; the default) or `plugin` (the provider plugin `terraform init` installed, read as `terraform apply -refresh-only` would); for the run, or per provider as NAME=READER (`aws=plugin`); repeatable' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l plugin-dir -d 'Where provider plugins are, instead of `.terraform/providers` under --config (or the working directory); repeatable' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l provider-config -d 'A provider configuration\'s arguments, a JSON object laid over the literal ones of its `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l format -d 'How to print the outcomes (JSON leaves the diff out)' -r -f -a "text\t'For people: lines and tables (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'"
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l lock-timeout -d 'How long to wait for the state lock, as Terraform\'s `-lock-timeout` (e.g. `30s`, `2m`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l backup -d 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -s o -l output -d 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup' -r
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l write -d 'Apply what was learned to the state (lifecycle rules, lock, backup, crash-safe write), or with `-o -` write the refreshed state to standard output (the outcomes and the diff then go to stderr)'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l untaint-healthy -d 'Clear the taint of a tainted instance whose remote object the provider reports healthy (reconciled), in the same locked write, so the next apply keeps it instead of replacing it. Off by default: a taint may also be deliberate'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l profiles-format -d 'Print the profile format (how to write a `--profiles` file, with examples) and exit'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l dry-run -d 'Show what would change and write nothing (exit 1 when something would change)'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l force -d 'Write even when lifecycle rules refuse the change; each override is printed'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -l show-sensitive -d 'Show sensitive values in the diff instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand refresh" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand lock" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand lock" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand lock" -l lock-timeout -d 'How long to wait for the lock (e.g. `30s`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand lock" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand lock" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand lock" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand lock" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l old-version -d 'Compare this earlier version of OLD (an id `statectl history` prints, or `~N`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l new-version -d 'Compare this earlier version of NEW (default: NEW\'s current state)' -r
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l format -d 'How to print the differences' -r -f -a "text\t'Header and output changes, then each object with the unified diff of its JSON (`table` is the same)'
json\t'One document, `schema_version` 1 (see README)'
markdown\t'A summary table and a diff block per changed object, for a pull-request comment'"
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l stat -d 'One line per changed object saying what changed in it, then the totals'
complete -c statectl -n "__fish_statectl_using_subcommand diff" -l show-sensitive -d 'Show sensitive values instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand diff" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand diff" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l version -d 'Read an earlier version of the state: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l plan -d 'A plan as `terraform show -json PLANFILE` (or `tofu show -json`) prints it: audit what it does instead of a destroy of everything' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l format -d 'How to print the audit' -r -f -a "text\t'For people: findings grouped per state, hints on stderr (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'
sarif\t'SARIF 2.1.0, for code scanning'
github\t'GitHub Actions annotations'
gitlab\t'GitLab Code Quality, for findings in merge requests'
junit\t'JUnit XML, for a CI\'s test report'
markdown\t'Markdown, for a pull-request comment or a job summary (within GitHub\'s 65,536 characters)'"
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l fail-on -d 'Exit 1 when a finding reaches this severity (violations always exit 3)' -r -f -a "error\t''
warning\t''
note\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand audit" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand audit" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand audit" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l target -d 'Only these instances (addresses as `terraform state list` takes them, or globs); repeatable. Default: every managed instance' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l type -d 'Only instances of these resource types (globs allowed); repeatable' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l module -d 'Only instances in these modules or below them (`module.net`, globs allowed); repeatable' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l ignore -d 'Not drift: changes at this attribute path (or below it) of this resource type, globs in both parts (`aws_instance.tags.LastScanned`, `*.tags_all.*`); repeatable. `[[drift.ignore]]` in `.statectl.toml` adds more, each with its reason' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l parallelism -d 'How many instances are read at once, over all providers (and remote states fetched at once)' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l timeout -d 'How long one instance\'s read may take at most' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l start-timeout -d 'How long a provider plugin may take to start: its handshake, and each of its schema and configuration calls before the first read' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l plugin-dir -d 'Where provider plugins are, instead of `.terraform/providers` under --config (or the working directory); repeatable' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l provider-config -d 'A provider configuration\'s arguments, a JSON object laid over the literal ones of its `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l lock-timeout -d 'How long `--lock` waits for the lock, as Terraform\'s `-lock-timeout` (e.g. `30s`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l max-pages -d 'With `--workspace GLOB` (`\'*\'`, `\'prod-*\'`): the most pages of the backend\'s workspace listing to read (1,000 names a page on S3, GCS and OCI, 100 workspaces on HCP Terraform); a listing still going after that is an error rather than followed for ever' -r
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l format -d 'How to print the report' -r -f -a "text\t'For people: findings grouped per state, hints on stderr (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'
sarif\t'SARIF 2.1.0, for code scanning'
github\t'GitHub Actions annotations'
gitlab\t'GitLab Code Quality, for findings in merge requests'
junit\t'JUnit XML, for a CI\'s test report'
markdown\t'Markdown, for a pull-request comment or a job summary (within GitHub\'s 65,536 characters)'"
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l all-changes -d 'Report every change the read shows, as `terraform plan -refresh-only` does: no noise rules (by default changes in attributes only the provider sets, and null <-> empty collections, are counted, not reported); ignores still apply'
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l lock -d 'Hold the state\'s lock while reading (Terraform-compatible). Off by default: drift never writes, and a lock would block an apply meanwhile'
complete -c statectl -n "__fish_statectl_using_subcommand drift" -l show-sensitive -d 'Show sensitive values instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand drift" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand drift" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand drift" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand history" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand history" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand history" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand history" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand history" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand history" -l limit -d 'Show the newest N versions (each is read to tell its serial and changes); `0` shows all' -r
complete -c statectl -n "__fish_statectl_using_subcommand history" -l format -d 'How to print the versions' -r -f -a "text\t'For people: lines and tables (`table` is the same)'
json\t'One JSON document with a `schema_version`, for scripts'"
complete -c statectl -n "__fish_statectl_using_subcommand history" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand history" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand history" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l version -d 'The version to make current: an id `statectl history` prints (an S3 version id, a backup\'s file name), or `~N` for N versions before the current one' -r
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l workspace -d 'The workspace whose state to use, over `TF_WORKSPACE` and `terraform workspace select`' -r
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l backend-config -d 'A backend setting over those `terraform init` recorded (or a URL\'s): `KEY=VALUE`, or an HCL file of them, as `terraform init -backend-config` takes them. Repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l config -d 'The root module\'s folder (default: the working directory). Its `terraform { encryption { ... } }` block opens OpenTofu-encrypted states; `taint`, `untaint`, `forget`, `refresh` and `audit` also apply its `lifecycle` and `removed` blocks (`--no-config` leaves them out)' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l var -d 'A value for a variable the configuration\'s encryption block uses, as `tofu -var`; repeatable; later ones win' -r
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l var-file -d 'A tfvars file of variable values, as `tofu -var-file`; repeatable. `terraform.tfvars` and `*.auto.tfvars` in the configuration folder are read without it' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l lock-timeout -d 'How long to wait for the state lock, as Terraform\'s `-lock-timeout` (e.g. `30s`, `2m`)' -r
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l backup -d 'Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as `terraform state rm` writes' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand restore" -s o -l output -d 'Write the new state to standard output instead of the file: `-o -`, the one value taken (e.g. for `terraform state push -`); no lock, no backup' -r
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l policy -d 'A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the `.statectl.toml` found upward from the working directory' -r -F
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l color -d 'When to color output: auto (a terminal without NO_COLOR), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l dry-run -d 'Show what would change and write nothing (exit 1 when something would change)'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l force -d 'Write even when lifecycle rules refuse the change; each override is printed'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l no-config -d 'Do not apply the configuration\'s lifecycle rules (`prevent_destroy`, `destroy = false`, `removed` blocks), which are otherwise read from `--config DIR` or the working directory'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -l show-sensitive -d 'Show sensitive values in the diff instead of masking them'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -s v -l verbose -d 'Log what statectl does to stderr: `-v` outcomes and progress, `-vv` every request. Credentials are never logged'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -s q -l quiet -d 'Print only data, warnings and errors: no notes (where a state was found, what was written, the backup), no progress, no hints beside findings'
complete -c statectl -n "__fish_statectl_using_subcommand restore" -s h -l help -d 'Print help'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "list" -d 'List resource instances, one address a line, as `terraform state list` does'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "show" -d 'Show one resource instance, sensitive values masked'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "query" -d 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "scan" -d 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "summary" -d 'Count resources and instances by type, module, provider and status'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "taint" -d 'Mark an instance for replacement by the next apply, as `terraform taint`, with lifecycle rules'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "untaint" -d 'Clear an instance\'s taint, as `terraform untaint`'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "forget" -d 'Remove instances (or one deposed object) from the state, as `terraform state rm`; remote objects are not touched'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "refresh" -d 'Ask the providers\' APIs about stale instances; show outcomes and the diff; `--write` applies it'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "lock" -d 'Hold the state lock (Terraform-compatible) while a command runs; exits with its code'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "diff" -d 'Compare two states: instances added, removed and changed, attribute by attribute; exit 1 when they differ'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "audit" -d 'Before a destroy: what it (or a plan) would do to each object, and what it must not do; exit 3 when a rule is violated'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "drift" -d 'Read every managed instance through its provider plugin and report what changed outside Terraform; never writes; exit 1 on drift'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "history" -d 'The versions the state\'s backend keeps (S3 object versions, local backups), newest first, with what changed from the version before'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "restore" -d 'Make an earlier version the current state: under the lock, lineage checked, serial raised above the current one, the current state backed up (and kept as a version)'
complete -c statectl -n "__fish_statectl_using_subcommand help; and not __fish_seen_subcommand_from list show query scan summary taint untaint forget refresh lock diff audit drift history restore help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
