# bash completion for rtltune(8) and rtltuned(8)                 -*- shell-script -*-
# shellcheck disable=SC2207 # COMPREPLY=($(compgen ...)) is the bash-completion idiom
# Installed as completions/rtltune and completions/rtltuned (bash-completion loads a file by
# the command's name). Completes commands, interface names (/sys/class/net), profile names
# and chip ids (the same directories rtltune searches), histogram names, network namespaces
# for -n, and each command's options as its --help lists them.

# Replaced by `make install` with the DATADIR the binaries were built for.
_rtltune_datadir=/usr/share/rtltune
_rtltune_sysconfdir=/etc/rtltune

# Directories holding SUBDIR (profiles or chips), most important first, as rtltune(8) says:
# $ENVVAR (colon-separated), the admin's, the shipped ones; plus the source tree's when the
# command is run as ./build/rtltune.
_rtltune_dirs()
{
	local envval=$1 subdir=$2 cmd=$3 d
	local IFS=:
	for d in $envval; do
		[[ -d $d ]] && printf '%s\n' "$d"
	done
	printf '%s\n' "$_rtltune_sysconfdir/$subdir" "$_rtltune_datadir/$subdir"
	[[ $cmd == */build/* ]] && printf '%s\n' "${cmd%/build/*}/$subdir"
}

_rtltune_profiles()
{
	local d f
	while read -r d; do
		for f in "$d"/*.conf; do
			[[ -e $f ]] || continue
			f=${f##*/}
			printf '%s\n' "${f%.conf}"
		done
	done < <(_rtltune_dirs "${RTLTUNE_PROFILE_PATH-}" profiles "$1") | sort -u
}

# Chip ids are the [section] headers of the chip files.
_rtltune_chip_ids()
{
	local d
	while read -r d; do
		[[ -d $d ]] || continue
		sed -n 's/^\[\([a-z0-9._-]*\)\].*/\1/p' "$d"/*.conf 2>/dev/null
	done < <(_rtltune_dirs "${RTLTUNE_CHIP_PATH-}" chips "$1") | sort -u
}

_rtltune_drivers()
{
	local d
	while read -r d; do
		[[ -d $d ]] || continue
		sed -n 's/^driver[[:space:]]*=[[:space:]]*\([^[:space:];#]*\).*/\1/p' "$d"/*.conf 2>/dev/null
	done < <(_rtltune_dirs "${RTLTUNE_CHIP_PATH-}" chips "$1") | sort -u
}

# Knob names from the binary's own table: feature.NAME and the ethtool groups included.
_rtltune_knobs()
{
	"$1" knobs --names 2>/dev/null
}

_rtltune_ifaces()
{
	local i
	for i in /sys/class/net/*; do
		[[ -e $i ]] && printf '%s\n' "${i##*/}"
	done
}

# The commands the binary itself lists (so new ones complete without editing this file).
_rtltune_commands()
{
	local out
	out=$("$1" --help 2>/dev/null | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { exit }')
	[[ -n $out ]] || out="show chips profiles profile apply verify restore trace sweep report status stats hist log autotune recommend version"
	printf '%s\n' "$out" help
}

# The options of COMMAND (of rtltune itself without one) as its --help lists them; with a
# third argument, only those that take a value. The binary's option tables are the source.
_rtltune_options()
{
	"$1" ${2:+"$2"} --help 2>/dev/null | awk -v values="${3-}" '
		/^Options/ { o = 1; next }
		o && /^$/ { exit }
		o {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^--/) {
					if (!values || $(i + 1) ~ /^[A-Z]/)
						print $i
					break
				}
		}'
}

_rtltune_netns()
{
	local n
	for n in /run/netns/*; do
		[[ -e $n ]] && printf '%s\n' "${n##*/}"
	done
}

_rtltune()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi
	local prog=${words[0]} cmd='' i nargs=0 valopts='--socket --config'

	# Find the command (the first word that is not a global option or its value); count
	# the positional arguments after it, skipping the values of its options.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-n | --netns)
			[[ -z $cmd ]] && ((i++))
			;;
		-*)
			[[ " $valopts " == *" ${words[i]} "* ]] && ((i++))
			;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${words[i]}
				valopts="--socket --config $(_rtltune_options "$prog" "$cmd" values | tr '\n' ' ')"
			else
				((nargs++))
			fi
			;;
		esac
	done

	case $prev in
	--socket | --config | --svg)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--since)
		COMPREPLY=($(compgen -W "10m 30m 1h 6h 1d" -- "$cur"))
		return
		;;
	--driver)
		COMPREPLY=($(compgen -W "$(_rtltune_drivers "$prog")" -- "$cur"))
		return
		;;
	--chip)
		COMPREPLY=($(compgen -W "$(_rtltune_chip_ids "$prog")" -- "$cur"))
		return
		;;
	-n | --netns)
		if [[ -z $cmd ]]; then
			COMPREPLY=($(compgen -W "$(_rtltune_netns)" -- "$cur"))
			return
		fi
		;;
	esac
	# Any other option's value is a number: nothing to offer.
	if [[ -n $cmd && $prev == -* && " $valopts " == *" $prev "* ]]; then
		COMPREPLY=()
		return
	fi

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_rtltune_options "$prog") -n" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_rtltune_commands "$prog")" -- "$cur"))
		fi
		return
	fi

	local words_for=''
	case $cmd in
	show | restore | trace | doctor)
		words_for=$(_rtltune_ifaces)
		;;
	chips | status | recommend | stats | report)
		((nargs == 0)) && words_for=$(_rtltune_ifaces)
		;;
	sweep)
		if ((nargs == 0)); then
			words_for=$(_rtltune_ifaces)
		elif ((nargs == 1)); then
			words_for=$(_rtltune_knobs "$prog")
		elif ((nargs == 2)); then
			words_for="max on off"
		fi
		;;
	apply | verify)
		if ((nargs == 0)); then
			if [[ $cur == */* || $cur == .* ]]; then
				# A PROFILE containing '/' is a file.
				COMPREPLY=($(compgen -f -X '!*.conf' -- "$cur") $(compgen -d -S / -- "$cur"))
				compopt -o nospace 2>/dev/null
				return
			fi
			words_for=$(_rtltune_profiles "$prog")
		else
			words_for=$(_rtltune_ifaces)
		fi
		;;
	profile)
		if ((nargs == 0)); then
			words_for=show
		elif ((nargs == 1)); then
			words_for=$(_rtltune_profiles "$prog")
		fi
		;;
	hist)
		if ((nargs == 0)); then
			words_for=$(_rtltune_ifaces)
		elif ((nargs == 1)); then
			words_for="tx_skb_bytes tx_gso_size_bytes tx_gso_segments rx_frame_bytes rx_skb_bytes"
		fi
		;;
	knobs)
		words_for=$(_rtltune_knobs "$prog")
		;;
	autotune)
		if ((nargs == 0)); then
			words_for="on off"
		elif ((nargs == 1)); then
			words_for=$(_rtltune_ifaces)
		fi
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_rtltune_options "$prog" "$cmd") --json --socket --config" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$words_for" -- "$cur"))
	fi
}

_rtltuned()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	case $prev in
	--config | --socket | --state-dir)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--metrics)
		COMPREPLY=($(compgen -W "127.0.0.1:9775 off" -- "$cur"))
		return
		;;
	--interfaces)
		COMPREPLY=($(compgen -W "$(_rtltune_ifaces)" -- "$cur"))
		return
		;;
	--profile)
		COMPREPLY=($(compgen -W "$(_rtltune_profiles "${COMP_WORDS[0]}") none" -- "$cur"))
		return
		;;
	esac
	COMPREPLY=($(compgen -W "--config --foreground --socket --metrics --state-dir
		--interfaces --profile --no-autotune --version --help" -- "$cur"))
}

complete -F _rtltune rtltune
complete -F _rtltuned rtltuned
