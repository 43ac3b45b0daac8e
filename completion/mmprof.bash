# bash completion for mmprof.  make install puts it where bash-completion
# loads it from (PREFIX/share/bash-completion/completions/mmprof); from a
# build tree: source completion/mmprof.bash.
#
# Everything it offers is asked of the mmprof being completed, so it
# cannot drift from it: options from --help (and a subcommand's from
# mmprof SUB --help, the subcommands from the usage lines), config names
# from --list-configs, and an option's values from --list-keys when the
# option sets the config key of its name (--placement, --kernel, ...),
# with probe names from --list-probes and presets from --list-events.
# Needs only bash (no bash-completion helpers).

# _mmprof_files PATTERN: directories and files matching PATTERN ('*.csv').
_mmprof_files() {
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -d -- "$cur") $(compgen -f -X "!$1" -- "$cur"))
}

# _mmprof_words WORDS...: the words that start with $cur's last comma-list
# element, each with what comes before that element.
_mmprof_words() {
	local head="" last=$cur w
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	fi
	for w in "$@"; do
		[[ $w == "$last"* ]] && COMPREPLY+=("$head$w")
	done
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
	return 0
}

# _mmprof_key_values KEY ARG HELP-LINE: the values --list-keys gives a
# config key, the kinds of a placement as "pus:" and the like; probe names
# and presets where the key takes those.  An option whose value is a
# number (N) gets only the words its own help line names (mmprof -r N takes
# no "auto"; mmprof exec -r N does, and says so).
_mmprof_key_values() {
	local values v
	values=$("$mm" --list-keys 2>/dev/null |
		awk -v k="$1" '$1 == k { getline; sub(/.*values: /, ""); print; exit }')
	[[ -n $values ]] || return 1
	local words=()
	[[ $values == *--list-probes* ]] && words+=($("$mm" --list-probes 2>/dev/null | awk '{ print $1 }'))
	[[ $values == *--list-events* ]] && words+=(none $("$mm" --list-events 2>/dev/null |
		awk '/^presets/ { p = 1; next } /^$/ { p = 0 } p && /^  [a-z]/ { print $1 }'))
	local IFS=','
	for v in ${values%%;*}; do
		v=${v# }
		case $v in
		any) ;;
		*\[:*\]) words+=("${v%%\[*}" "${v%%\[*}:") ;;
		[a-z]*:[A-Z]*) words+=("${v%%:*}:") ;;
		[a-z]*) [[ $v == *' '* ]] || words+=("$v") ;;
		esac
	done
	unset IFS
	if [[ $2 == N ]]; then
		local named=()
		for v in "${words[@]}"; do
			[[ $3 =~ (^|[^a-z])$v([^a-z]|$) ]] && named+=("$v")
		done
		words=("${named[@]}")
	fi
	_mmprof_words "${words[@]}"
}

_mmprof() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local mm=${COMP_WORDS[0]/#\~/${HOME-\~}} sub="" help i
	COMPREPLY=()
	command -v "$mm" >/dev/null 2>&1 || return 0
	help=$("$mm" --help 2>/dev/null) || return 0
	local subs
	subs=$(sed -n '/^usage:/,/^$/s/^[a-z: ]*mmprof \([a-z][a-z-]*\) .*/\1/p' <<<"$help")
	subs=${subs//$'\n'/ } # one word list: "compare exec"
	if ((COMP_CWORD > 1)) && [[ " $subs " == *" ${COMP_WORDS[1]} "* ]]; then
		sub=${COMP_WORDS[1]}
		help=$("$mm" "$sub" --help 2>/dev/null)
	else
		# The main command's own options: --help's "options:" block (the
		# subcommands' options follow it, for reading, not for it).
		help=$(sed -n '/^options:$/,/^$/p' <<<"$help")$'\n'$(sed -n '/^config keys/,$p' <<<"$help")
	fi
	# After "--" (mmprof exec -- CMD ...): a command, then its arguments.
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if ((i == COMP_CWORD - 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				_mmprof_files '*'
			fi
			return 0
		fi
	done

	# --opt=value: bash splits it at '='.
	local opt="" eq=""
	if [[ $cur == = ]]; then
		cur="" opt=$prev eq=1
	elif [[ $prev == = ]]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]} eq=1
	elif [[ $prev == -* ]]; then
		opt=$prev
	fi
	# An option's line in --help: "  -c, --config FILE   ..." (the value's
	# name in capitals), "  --list-keys[=markdown|roles]  ...".
	if [[ -n $opt ]]; then
		local line long arg
		line=$(grep -E -- "^  (-[A-Za-z0-9], )?--[a-z0-9-]+" <<<"$help" |
			grep -E -- "(^  $opt,|[ ,]$opt[ [])" | head -1)
		long=$(grep -oE -- '--[a-z0-9-]+' <<<"$line" | head -1)
		arg=$(sed -nE 's/^  (-[A-Za-z0-9], )?--[a-z0-9-]+( ([A-Z][A-Z0-9_.]*)|\[=([a-z|]+)\])? .*/\3\4/p' <<<"$line")
		# An optional value is given only as --opt=value.
		[[ $line == *\[=* && -z $eq ]] && arg=""
		if [[ -n $arg ]]; then
			case $long in
			--config)
				_mmprof_files '*.ini'
				[[ $cur == */* ]] || _mmprof_words $("$mm" --list-configs 2>/dev/null |
					awk '/^configs by name:/ { p = 1; next } p { print $1 }')
				;;
			--csv) _mmprof_files '*.csv' ;;
			--json) _mmprof_files '*.json' ;;
			--explain) # the jobs of the --config on the line: its [sections]
				local c="" j=""
				for ((i = 1; i < COMP_CWORD; i++)); do
					[[ ${COMP_WORDS[i]} == -c || ${COMP_WORDS[i]} == --config ]] &&
						c=${COMP_WORDS[i + 1]}
					[[ ${COMP_WORDS[i]} == --job ]] && j=${COMP_WORDS[i + 1]}
				done
				# mmprof exec's one job: --job's name (else the program's,
				# which comes after the cursor)
				[[ $sub == exec && -n $j ]] && _mmprof_words "$j"
				[[ -f $c ]] || c=$("$mm" --list-configs 2>/dev/null |
					awk -v n="$c" '/^configs by name:/ { p = 1; next } p && $1 == n { print $2 }')
				[[ -f $c ]] && _mmprof_words $(sed -n 's/^\[\([A-Za-z0-9_.-]*\)\].*/\1/p' "$c" |
					grep -vx global)
				;;
			--file) _mmprof_files '*' ;;
			--topology-from)
				if [[ $cur == xml:* ]]; then
					local base=$cur
					cur=${cur#xml:}
					_mmprof_files '*.xml'
					COMPREPLY=("${COMPREPLY[@]/#/xml:}")
					cur=$base
				else
					_mmprof_words synthetic: xml:
				fi
				;;
			*)
				if [[ $line == *\[=* ]]; then
					# [=markdown|roles]: each word
					_mmprof_words ${arg//|/ }
				else
					_mmprof_key_values "${long#--}" "$arg" "$line"
				fi
				;;
			esac
			return 0
		fi
	fi

	if [[ $cur == -* ]]; then
		local opts
		opts=$(sed -nE 's/^  (-([A-Za-z0-9]), )?--([a-z0-9][a-z0-9-]*).*/-\2 --\3/p' <<<"$help" |
			sed 's/^- //')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi
	case $sub in
	"") ((COMP_CWORD == 1)) && COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;
	compare) _mmprof_files '*.csv' ;;
	*) _mmprof_files '*' ;;
	esac
	return 0
}

complete -F _mmprof mmprof
