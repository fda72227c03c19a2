package outfile

// noFollow is unix's O_NOFOLLOW; Windows has no such open flag (and
// creating a symlink there takes a privilege), so Append opens as is.
const noFollow = 0
