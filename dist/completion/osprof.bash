# bash completion for osprof. Commands, options, layers and op names come
# from the osprof being completed (osprof --help, osprof CMD --help,
# osprof list, osprof list LAYER), so they follow the binary.
# COMPREPLY=($(compgen ...)) is the idiom of completion functions:
# shellcheck disable=SC2207

# Option names of one command (OSPROF CMD [SUBCMD]), from its --help text.
_osprof_opts() {
	"$@" --help 2>/dev/null |
		grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ ,]*//' | sort -u
}

_osprof() {
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	local osprof=${words[0]}
	if [ "$cword" -eq 1 ]; then
		local cmds
		cmds=$("$osprof" --help 2>/dev/null | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
		COMPREPLY=($(compgen -W "$cmds help version --help --version -V" -- "$cur"))
		return
	fi
	local cmd=${words[1]}
	case $prev in
	-l | --layers | --layer)
		# A comma-separated list: complete the last element.
		local layers head=${cur%,*}
		layers=$("$osprof" list 2>/dev/null | awk '/^[a-z]/{print $1}')
		if [ "$head" = "$cur" ]; then
			COMPREPLY=($(compgen -W "$layers" -- "$cur"))
		else
			COMPREPLY=($(compgen -P "$head," -W "$layers" -- "${cur##*,}"))
		fi
		compopt -o nospace 2>/dev/null
		return
		;;
	--op | --func | --syscall)
		# LAYER:OP (plot/html/peaks --op) or a bare op name of the layer
		# the option belongs to.
		local layer=${cur%%:*} ops
		if [ "$prev" = --syscall ]; then
			ops=$("$osprof" list syscall 2>/dev/null | awk 'NR>1{print $1}')
			COMPREPLY=($(compgen -W "$ops" -- "$cur"))
		elif [ "$prev" = --func ]; then
			ops=$("$osprof" list fs 2>/dev/null | awk 'NR>1 && $1 !~ /^(fuse|--func)$/{print $1}')
			COMPREPLY=($(compgen -W "$ops" -- "$cur"))
		elif [ "$layer" = "$cur" ]; then
			COMPREPLY=($(compgen -S : -W "$("$osprof" list 2>/dev/null | awk '/^[a-z]/{print $1}')" -- "$cur"))
			compopt -o nospace 2>/dev/null
		else
			ops=$("$osprof" list "$layer" 2>/dev/null | awk 'NR>1 && $0 !~ /:/{for (i = 1; i <= NF; i++) if ($i ~ /^[A-Za-z_][A-Za-z0-9_.]*$/) print $i}')
			COMPREPLY=($(compgen -P "$layer:" -W "$ops" -- "${cur#*:}"))
		fi
		return
		;;
	-o | --output | -w | --replay | --state | --rootcause | --archive)
		_filedir 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	-p | --pid)
		COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur"))
		return
		;;
	--by)
		COMPREPLY=($(compgen -W "pid tid comm fs dev caller" -- "$cur"))
		return
		;;
	esac
	if [ "$cmd" = trace ] && [ "$cword" -eq 2 ]; then
		local subs
		subs=$("$osprof" trace --help 2>/dev/null | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
		COMPREPLY=($(compgen -W "$subs" -- "$cur"))
		return
	fi
	if [ "$cmd" = list ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$("$osprof" list 2>/dev/null | awk '/^[a-z]/{print $1}')" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		if [ "$cmd" = trace ]; then
			COMPREPLY=($(compgen -W "$(_osprof_opts "$osprof" trace "${words[2]}")" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_osprof_opts "$osprof" "$cmd")" -- "$cur"))
		fi
		return
	fi
	_filedir 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _osprof osprof
