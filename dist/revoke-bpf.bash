# bash completion for revoke-bpf(8)                        -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0
#
# Commands and options are read from revoke-bpf's own help ('revoke-bpf
# help' and 'revoke-bpf help COMMAND'), the one place they are listed, and
# kept for the shell's life.  Operands: files for add, del and holders;
# for --fs and umount, mount points (from /proc/self/mountinfo), block
# devices and files; for --dev, the filesystems' MAJ:MIN; for --tag,
# uaccess (the one tag pause takes); for --seat, logind's seats.

declare -gA _revoke_bpf_opts _revoke_bpf_args
declare -g _revoke_bpf_cmds=

# _revoke_bpf_learn CLI [COMMAND]: the commands, or COMMAND's options and
# the global ones ("--timeout DURATION": one that takes a value)
_revoke_bpf_learn()
{
	local cli=$1 cmd=${2:-} line opt short arg key=${2:-.}

	if [[ -z $_revoke_bpf_cmds ]]; then
		_revoke_bpf_cmds=$("$cli" help 2>/dev/null |
			sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | tr '\n' ' ')
	fi
	[[ -n ${_revoke_bpf_opts[$key]+set} ]] && return
	_revoke_bpf_opts[$key]=
	while IFS= read -r line; do
		[[ $line =~ ^\ \ (-[a-zA-Z],\ )?(--[a-z-]+)(\ [A-Z][A-Z:]*)? ]] ||
			continue
		short=${BASH_REMATCH[1]%, }
		opt=${BASH_REMATCH[2]}
		arg=${BASH_REMATCH[3]# }
		[[ $opt == -- ]] && continue
		_revoke_bpf_opts[$key]+="$opt $short "
		if [[ -n $arg ]]; then
			_revoke_bpf_args[$opt]=$arg
			[[ -n $short ]] && _revoke_bpf_args[$short]=$arg
		fi
	done < <(if [[ -n $cmd ]]; then "$cli" help "$cmd"; else "$cli" help; fi 2>/dev/null)
}

# the mount points, unescaped (\040 is a space), and block devices mounted
_revoke_bpf_mounts()
{
	local _ mnt src

	while read -r _ _ _ _ mnt _; do
		printf '%b\n' "$mnt"
	done < /proc/self/mountinfo
	while read -r src _; do
		[[ $src == /dev/* ]] && printf '%s\n' "$src"
	done < /proc/self/mounts
}

# the filesystems' MAJ:MIN, for --dev
_revoke_bpf_devs()
{
	local _ dev

	while read -r _ _ dev _; do
		printf '%s\n' "$dev"
	done < /proc/self/mountinfo | sort -u
}

# logind's seats (its files in /run/systemd/seats), seat0 when none
_revoke_bpf_seats()
{
	local f seats=

	for f in /run/systemd/seats/seat*; do
		[[ -f $f ]] && seats+="${f##*/} "
	done
	printf '%s\n' ${seats:-seat0}
}

# _revoke_bpf_words CUR WORD...: COMPREPLY from the words that start with CUR
_revoke_bpf_words()
{
	local cur=$1 w

	shift
	for w in "$@"; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}

# mount points and block devices, quoted as file names when inserted: a
# mount point's name is a user's choice (a FUSE mount, a USB stick's
# label under /media), and "a;b" or "$(b)" must stay one word, not code
_revoke_bpf_fs()
{
	local cur=$1 line

	compopt -o filenames 2>/dev/null
	while IFS= read -r line; do
		[[ $line == "$cur"* ]] && COMPREPLY+=("$line")
	done < <(_revoke_bpf_mounts | sort -u)
	[[ ${#COMPREPLY[@]} -gt 0 ]] || _revoke_bpf_files "$cur"
}

_revoke_bpf_files()
{
	local IFS=$'\n'

	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -f -- "$1"))
}

# the complete -F function: $1 the command, COMP_WORDS and COMP_CWORD
_revoke_bpf()
{
	local cli=${1:-revoke-bpf} cur=${COMP_WORDS[COMP_CWORD]}
	local prev= cmd= i w ended=

	COMPREPLY=()
	[[ $COMP_CWORD -gt 0 ]] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	_revoke_bpf_learn "$cli"
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -- ]]; then
			ended=1
		elif [[ -z $ended && $w == -* ]]; then
			[[ -n ${_revoke_bpf_args[$w]+set} ]] && ((i++))
		elif [[ -z $cmd ]]; then
			cmd=$w
		fi
	done
	[[ -n $cmd ]] && _revoke_bpf_learn "$cli" "$cmd"
	if [[ -z $ended && -n ${_revoke_bpf_args[$prev]+set} ]]; then
		case $prev in
		--fs) _revoke_bpf_fs "$cur" ;;
		--dev) _revoke_bpf_words "$cur" $(_revoke_bpf_devs) ;;
		--tag) _revoke_bpf_words "$cur" uaccess ;;
		--seat) _revoke_bpf_words "$cur" $(_revoke_bpf_seats) ;;
		--socket | --output | -o) _revoke_bpf_files "$cur" ;;
		esac
		return 0
	fi
	if [[ -z $ended && $cur == -* ]]; then
		_revoke_bpf_words "$cur" ${_revoke_bpf_opts[.]} \
			${cmd:+${_revoke_bpf_opts[$cmd]}}
		return 0
	fi
	case $cmd in
	'') _revoke_bpf_words "$cur" $_revoke_bpf_cmds ;;
	help) _revoke_bpf_words "$cur" $_revoke_bpf_cmds ;;
	umount) _revoke_bpf_fs "$cur" ;;
	add | del | holders) _revoke_bpf_files "$cur" ;;
	esac
	return 0
}

complete -F _revoke_bpf revoke-bpf
