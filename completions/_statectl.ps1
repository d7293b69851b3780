
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
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List resource instances, one address a line, as `terraform state list` does')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one resource instance, sensitive values masked')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Query the state with an RFC 9535 JSONPath expression; prints the matches as a JSON array')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Find stale async resources and lifecycle risks, for CI: exit 1 when a finding reaches --fail-on')
            [CompletionResult]::new('summary', 'summary', [CompletionResultType]::ParameterValue, 'Count resources and instances by type, module, provider and status')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write shell completions and man pages (for packaging; checked in under completions/ and man/)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'statectl;list' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only instances of this resource type (repeatable)')
            [CompletionResult]::new('--module', '--module', [CompletionResultType]::ParameterName, 'Only instances in this module or below it (`module.app`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--tainted', '--tainted', [CompletionResultType]::ParameterName, 'Only instances whose current object is tainted')
            [CompletionResult]::new('--deposed', '--deposed', [CompletionResultType]::ParameterName, 'Only instances that have deposed objects')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;show' {
            [CompletionResult]::new('--deposed', '--deposed', [CompletionResultType]::ParameterName, 'Show this deposed object instead of the current one')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values instead of masking them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;query' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--show-sensitive', '--show-sensitive', [CompletionResultType]::ParameterName, 'Show sensitive values instead of masking them')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'Print the result on one line')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;scan' {
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'A rules file (TOML). Default: `.statectl.toml` in the working directory or the nearest folder above')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when a finding reaches this severity')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many states to scan at once (default: the number of CPUs)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many states to scan at once (default: the number of CPUs)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--data-sources', '--data-sources', [CompletionResultType]::ParameterName, 'Also scan data sources (skipped by default: they hold no remote object to fix)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;summary' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'statectl;generate' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The project root: files go to `ROOT/completions` and `ROOT/man`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color output: auto (a terminal without NO_COLOR), always, never')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Compare with the files on disk instead of writing; exit 1 when any is stale')
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
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Write shell completions and man pages (for packaging; checked in under completions/ and man/)')
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
        'statectl;help;generate' {
            break
        }
        'statectl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
