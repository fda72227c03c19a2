package mcpside

import (
	"bufio"
	"io"
	"net"
	"sync"
)

// maxLine bounds one JSON-RPC message on a stdio connection.
const maxLine = 4 << 20

// serveRelay sits between the agent (conn) and one server session: it
// logs the watched calls, answers the ones FailNext says, and drops the
// answers LoseAnswers says. The connection closes when the session ends,
// when the agent closes it, or at a restart.
func (s *Side) serveRelay(conn net.Conn) {
	g := s.current()
	if !g.conns.Hold(conn) {
		return
	}
	defer g.conns.Release(conn)
	defer conn.Close()
	toServer, fromAgent := io.Pipe()
	fromServer, toAgent := io.Pipe()
	go func() {
		g.server.ServeIO(g.ctx, toServer, toAgent)
		toAgent.Close()
		conn.Close()
	}()
	var wmu sync.Mutex
	write := func(line []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		conn.Write(append(line, '\n'))
	}
	var pmu sync.Mutex
	pending := map[string]*call{}
	done := make(chan struct{})
	go func() { // the server's answers, to the agent
		defer close(done)
		sc := bufio.NewScanner(fromServer)
		sc.Buffer(make([]byte, 64<<10), maxLine)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			if id := answerID(line); id != "" {
				pmu.Lock()
				c := pending[id]
				delete(pending, id)
				pmu.Unlock()
				if c != nil && s.end(c, line) {
					continue
				}
			}
			write(line)
		}
		fromServer.CloseWithError(io.EOF)
	}()
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		if c := watched(line); c != nil {
			if inject := s.begin(c); inject != nil {
				if !s.Losing() {
					write(inject)
				}
				continue
			}
			pmu.Lock()
			pending[c.id] = c
			pmu.Unlock()
		}
		if _, err := fromAgent.Write(append(line, '\n')); err != nil {
			break
		}
	}
	fromAgent.Close()
	conn.Close()
	<-done
}
