package targets

import (
	"fmt"
	"strconv"

	"github.com/idemspec/idemspec/fakes"
)

// fakePageOption reads a fake's page_size or page_style option.
func fakePageOption(opts *fakes.Options, name, value string) error {
	if name == "page_style" {
		opts.PageStyle = value
		return nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > fakes.MaxPageSize {
		return fmt.Errorf("page_size: %q is not a count from 1 to %d", value, fakes.MaxPageSize)
	}
	opts.PageSize = n
	return nil
}

// fakePages is how the oracle reads a fake's list in its page style
// (nil when the fake answers every item at once). The styles use the
// target file's ways to the next page in turn, so the reference proves
// each of them in the detection matrix.
func fakePages(opts fakes.Options) *Pages {
	if opts.PageSize <= 0 {
		return nil
	}
	p := &Pages{Next: opts.PageStyle, FirstPage: 1, Max: DefaultMaxPages}
	switch opts.PageStyle {
	case fakes.PageCursor:
		p.Field, p.Param = "next_cursor", "cursor"
	case fakes.PagePage:
		p.Param, p.More = "page", "has_more"
	case fakes.PageOffset:
		p.Param = "offset"
	default:
		p.Next = PagesLink
	}
	return p
}
