package stream

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// overlapStep is one OVERLAP_STEP of Suricata's src/tests/stream-tcp-list.c: a segment at
// relative sequence number rseq (ISN+rseq; 1 is the first byte) and the expected stream from
// offset 0, holes read as NUL bytes (the test's VALIDATE on the streaming buffer).
type overlapStep struct {
	rseq   uint32
	seg    string
	expect string
}

// suricataOverlapTests are the Overlap* functions of Suricata 8.0.6 src/tests/stream-tcp-list.c,
// run there by StreamTcpReassembleTest01 (bsd) .. StreamTcpReassembleTest06 (last) for ISNs 0,
// 1, UINT_MAX and UINT_MAX-10.
var suricataOverlapTests = []struct {
	name   string
	policy Policy
	steps  []overlapStep
}{
	{"OverlapBSD", PolicyBSD, []overlapStep{
		{2, "AAA", "\x00AAA"},
		{6, "BB", "\x00AAA\x00BB"},
		{8, "CCC", "\x00AAA\x00BBCCC"},
		{12, "D", "\x00AAA\x00BBCCC\x00D"},
		{15, "EE", "\x00AAA\x00BBCCC\x00D\x00\x00EE"},
		{17, "FFF", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFF"},
		{20, "GG", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGG"},
		{22, "HH", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHH"},
		{24, "I", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHHI"},
		{3, "JJJJ", "\x00AAAJJBCCC\x00D\x00\x00EEFFFGGHHI"},
		{8, "KKK", "\x00AAAJJBCCC\x00D\x00\x00EEFFFGGHHI"},
		{11, "LLL", "\x00AAAJJBCCCLLL\x00EEFFFGGHHI"},
		{14, "MMM", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{18, "N", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{21, "O", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{22, "P", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{24, "QQ", "\x00AAAJJBCCCLLLMMMFFFGGHHIQ"},
		{1, "0", "0AAAJJBCCCLLLMMMFFFGGHHIQ"},
	}},
	{"OverlapBSDBefore", PolicyBSD, []overlapStep{
		{3, "B", "\x00\x00B"},
		{9, "D", "\x00\x00B\x00\x00\x00\x00\x00D"},
		{12, "EE", "\x00\x00B\x00\x00\x00\x00\x00D\x00\x00EE"},
		{2, "AA", "\x00AA\x00\x00\x00\x00\x00D\x00\x00EE"},
		{1, "JJJJ", "JJJJ\x00\x00\x00\x00D\x00\x00EE"},
		{8, "LLL", "JJJJ\x00\x00\x00LLL\x00EE"},
		{11, "MMM", "JJJJ\x00\x00\x00LLLMMM"},
	}},
	{"OverlapBSDSame", PolicyBSD, []overlapStep{
		{1, "CCC", "CCC"},
		{15, "HH", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HH"},
		{17, "II", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "KKK", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "LLLL", "CCCL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "P", "CCCL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "QQ", "CCCL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
	}},
	{"OverlapBSDAfter", PolicyBSD, []overlapStep{
		{1, "AA", "AA"},
		{16, "FFF", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFF"},
		{19, "GG", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{2, "JJ", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{20, "O", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{17, "N", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
	}},
	{"OverlapVISTA", PolicyVista, []overlapStep{
		{2, "AAA", "\x00AAA"},
		{6, "BB", "\x00AAA\x00BB"},
		{8, "CCC", "\x00AAA\x00BBCCC"},
		{12, "D", "\x00AAA\x00BBCCC\x00D"},
		{15, "EE", "\x00AAA\x00BBCCC\x00D\x00\x00EE"},
		{17, "FFF", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFF"},
		{20, "GG", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGG"},
		{22, "HH", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHH"},
		{24, "I", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHHI"},
		{3, "JJJJ", "\x00AAAJBBCCC\x00D\x00\x00EEFFFGGHHI"},
		{8, "KKK", "\x00AAAJBBCCC\x00D\x00\x00EEFFFGGHHI"},
		{11, "LLL", "\x00AAAJBBCCCLDL\x00EEFFFGGHHI"},
		{14, "MMM", "\x00AAAJBBCCCLDLMEEFFFGGHHI"},
		{18, "N", "\x00AAAJBBCCCLDLMEEFFFGGHHI"},
		{21, "O", "\x00AAAJBBCCCLDLMEEFFFGGHHI"},
		{22, "P", "\x00AAAJBBCCCLDLMEEFFFGGHHI"},
		{24, "QQ", "\x00AAAJBBCCCLDLMEEFFFGGHHIQ"},
		{1, "0", "0AAAJBBCCCLDLMEEFFFGGHHIQ"},
	}},
	{"OverlapVISTABefore", PolicyVista, []overlapStep{
		{3, "B", "\x00\x00B"},
		{9, "D", "\x00\x00B\x00\x00\x00\x00\x00D"},
		{12, "EE", "\x00\x00B\x00\x00\x00\x00\x00D\x00\x00EE"},
		{2, "AA", "\x00AB\x00\x00\x00\x00\x00D\x00\x00EE"},
		{1, "JJJJ", "JABJ\x00\x00\x00\x00D\x00\x00EE"},
		{8, "LLL", "JABJ\x00\x00\x00LDL\x00EE"},
		{11, "MMM", "JABJ\x00\x00\x00LDLMEE"},
	}},
	{"OverlapVISTASame", PolicyVista, []overlapStep{
		{1, "CCC", "CCC"},
		{15, "HH", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HH"},
		{17, "II", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "KKK", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "LLLL", "CCCL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "P", "CCCL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "QQ", "CCCL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
	}},
	{"OverlapVISTAAfter", PolicyVista, []overlapStep{
		{1, "AA", "AA"},
		{16, "FFF", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFF"},
		{19, "GG", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{2, "JJ", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{20, "O", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{17, "N", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
	}},
	{"OverlapLINUX", PolicyLinux, []overlapStep{
		{2, "AAA", "\x00AAA"},
		{6, "BB", "\x00AAA\x00BB"},
		{8, "CCC", "\x00AAA\x00BBCCC"},
		{12, "D", "\x00AAA\x00BBCCC\x00D"},
		{15, "EE", "\x00AAA\x00BBCCC\x00D\x00\x00EE"},
		{17, "FFF", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFF"},
		{20, "GG", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGG"},
		{22, "HH", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHH"},
		{24, "I", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHHI"},
		{3, "JJJJ", "\x00AAAJJBCCC\x00D\x00\x00EEFFFGGHHI"},
		{8, "KKK", "\x00AAAJJBCCC\x00D\x00\x00EEFFFGGHHI"},
		{11, "LLL", "\x00AAAJJBCCCLLL\x00EEFFFGGHHI"},
		{14, "MMM", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{18, "N", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{21, "O", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{22, "P", "\x00AAAJJBCCCLLLMMMFFFGGHHI"},
		{24, "QQ", "\x00AAAJJBCCCLLLMMMFFFGGHHQQ"},
		{1, "0", "0AAAJJBCCCLLLMMMFFFGGHHQQ"},
	}},
	{"OverlapLINUXBefore", PolicyLinux, []overlapStep{
		{3, "B", "\x00\x00B"},
		{9, "D", "\x00\x00B\x00\x00\x00\x00\x00D"},
		{12, "EE", "\x00\x00B\x00\x00\x00\x00\x00D\x00\x00EE"},
		{2, "AA", "\x00AA\x00\x00\x00\x00\x00D\x00\x00EE"},
		{1, "JJJJ", "JJJJ\x00\x00\x00\x00D\x00\x00EE"},
		{8, "LLL", "JJJJ\x00\x00\x00LLL\x00EE"},
		{11, "MMM", "JJJJ\x00\x00\x00LLLMMM"},
	}},
	{"OverlapLINUXSame", PolicyLinux, []overlapStep{
		{1, "CCC", "CCC"},
		{15, "HH", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HH"},
		{17, "II", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "KKK", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "LLLL", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "P", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "QQ", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
	}},
	{"OverlapLINUXAfter", PolicyLinux, []overlapStep{
		{1, "AA", "AA"},
		{16, "FFF", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFF"},
		{19, "GG", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{2, "JJ", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{20, "O", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{17, "N", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
	}},
	{"OverlapLINUXOLD", PolicyOldLinux, []overlapStep{
		{2, "AAA", "\x00AAA"},
		{6, "BB", "\x00AAA\x00BB"},
		{8, "CCC", "\x00AAA\x00BBCCC"},
		{12, "D", "\x00AAA\x00BBCCC\x00D"},
		{15, "EE", "\x00AAA\x00BBCCC\x00D\x00\x00EE"},
		{17, "FFF", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFF"},
		{20, "GG", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGG"},
		{22, "HH", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHH"},
		{24, "I", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHHI"},
		{3, "JJJJ", "\x00AAAJJBCCC\x00D\x00\x00EEFFFGGHHI"},
		{8, "KKK", "\x00AAAJJBKKK\x00D\x00\x00EEFFFGGHHI"},
		{11, "LLL", "\x00AAAJJBKKKLLL\x00EEFFFGGHHI"},
		{14, "MMM", "\x00AAAJJBKKKLLLMMMFFFGGHHI"},
		{18, "N", "\x00AAAJJBKKKLLLMMMFFFGGHHI"},
		{21, "O", "\x00AAAJJBKKKLLLMMMFFFGGHHI"},
		{22, "P", "\x00AAAJJBKKKLLLMMMFFFGGHHI"},
		{24, "QQ", "\x00AAAJJBKKKLLLMMMFFFGGHHQQ"},
		{1, "0", "0AAAJJBKKKLLLMMMFFFGGHHQQ"},
	}},
	{"OverlapLINUXOLDBefore", PolicyOldLinux, []overlapStep{
		{3, "B", "\x00\x00B"},
		{9, "D", "\x00\x00B\x00\x00\x00\x00\x00D"},
		{12, "EE", "\x00\x00B\x00\x00\x00\x00\x00D\x00\x00EE"},
		{2, "AA", "\x00AA\x00\x00\x00\x00\x00D\x00\x00EE"},
		{1, "JJJJ", "JJJJ\x00\x00\x00\x00D\x00\x00EE"},
		{8, "LLL", "JJJJ\x00\x00\x00LLL\x00EE"},
		{11, "MMM", "JJJJ\x00\x00\x00LLLMMM"},
	}},
	{"OverlapLINUXOLDSame", PolicyOldLinux, []overlapStep{
		{1, "CCC", "CCC"},
		{15, "HH", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HH"},
		{17, "II", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "KKK", "KKK\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "LLLL", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "P", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "QQ", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00QQII"},
	}},
	{"OverlapLINUXOLDAfter", PolicyOldLinux, []overlapStep{
		{1, "AA", "AA"},
		{16, "FFF", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFF"},
		{19, "GG", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{2, "JJ", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{20, "O", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{17, "N", "AAJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
	}},
	{"OverlapSOLARIS", PolicySolaris, []overlapStep{
		{2, "AAA", "\x00AAA"},
		{6, "BB", "\x00AAA\x00BB"},
		{8, "CCC", "\x00AAA\x00BBCCC"},
		{12, "D", "\x00AAA\x00BBCCC\x00D"},
		{15, "EE", "\x00AAA\x00BBCCC\x00D\x00\x00EE"},
		{17, "FFF", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFF"},
		{20, "GG", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGG"},
		{22, "HH", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHH"},
		{24, "I", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHHI"},
		{3, "JJJJ", "\x00AJJJBBCCC\x00D\x00\x00EEFFFGGHHI"},
		{8, "KKK", "\x00AJJJBBKKK\x00D\x00\x00EEFFFGGHHI"},
		{11, "LLL", "\x00AJJJBBKKKLLL\x00EEFFFGGHHI"},
		{14, "MMM", "\x00AJJJBBKKKLLLMMMFFFGGHHI"},
		{18, "N", "\x00AJJJBBKKKLLLMMMFFFGGHHI"},
		{21, "O", "\x00AJJJBBKKKLLLMMMFFFGGHHI"},
		{22, "P", "\x00AJJJBBKKKLLLMMMFFFGGHHI"},
		{24, "QQ", "\x00AJJJBBKKKLLLMMMFFFGGHHQQ"},
		{1, "0", "0AJJJBBKKKLLLMMMFFFGGHHQQ"},
	}},
	{"OverlapSOLARISBefore", PolicySolaris, []overlapStep{
		{3, "B", "\x00\x00B"},
		{9, "D", "\x00\x00B\x00\x00\x00\x00\x00D"},
		{12, "EE", "\x00\x00B\x00\x00\x00\x00\x00D\x00\x00EE"},
		{2, "AA", "\x00AA\x00\x00\x00\x00\x00D\x00\x00EE"},
		{1, "JJJJ", "JJJJ\x00\x00\x00\x00D\x00\x00EE"},
		{8, "LLL", "JJJJ\x00\x00\x00LLL\x00EE"},
		{11, "MMM", "JJJJ\x00\x00\x00LLLMMM"},
	}},
	{"OverlapSOLARISSame", PolicySolaris, []overlapStep{
		{1, "CCC", "CCC"},
		{15, "HH", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HH"},
		{17, "II", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "KKK", "KKK\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "LLLL", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "P", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "QQ", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00QQII"},
	}},
	{"OverlapSOLARISAfter", PolicySolaris, []overlapStep{
		{1, "AA", "AA"},
		{16, "FFF", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFF"},
		{19, "GG", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{2, "JJ", "AJJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{20, "O", "AJJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{17, "N", "AJJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
	}},
	{"OverlapLAST", PolicyLast, []overlapStep{
		{2, "AAA", "\x00AAA"},
		{6, "BB", "\x00AAA\x00BB"},
		{8, "CCC", "\x00AAA\x00BBCCC"},
		{12, "D", "\x00AAA\x00BBCCC\x00D"},
		{15, "EE", "\x00AAA\x00BBCCC\x00D\x00\x00EE"},
		{17, "FFF", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFF"},
		{20, "GG", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGG"},
		{22, "HH", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHH"},
		{24, "I", "\x00AAA\x00BBCCC\x00D\x00\x00EEFFFGGHHI"},
		{3, "JJJJ", "\x00AJJJJBCCC\x00D\x00\x00EEFFFGGHHI"},
		{8, "KKK", "\x00AJJJJBKKK\x00D\x00\x00EEFFFGGHHI"},
		{11, "LLL", "\x00AJJJJBKKKLLL\x00EEFFFGGHHI"},
		{14, "MMM", "\x00AJJJJBKKKLLLMMMFFFGGHHI"},
		{18, "N", "\x00AJJJJBKKKLLLMMMFNFGGHHI"},
		{21, "O", "\x00AJJJJBKKKLLLMMMFNFGOHHI"},
		{22, "P", "\x00AJJJJBKKKLLLMMMFNFGOPHI"},
		{24, "QQ", "\x00AJJJJBKKKLLLMMMFNFGOPHQQ"},
		{1, "0", "0AJJJJBKKKLLLMMMFNFGOPHQQ"},
	}},
	{"OverlapLASTBefore", PolicyLast, []overlapStep{
		{3, "B", "\x00\x00B"},
		{9, "D", "\x00\x00B\x00\x00\x00\x00\x00D"},
		{12, "EE", "\x00\x00B\x00\x00\x00\x00\x00D\x00\x00EE"},
		{2, "AA", "\x00AA\x00\x00\x00\x00\x00D\x00\x00EE"},
		{1, "JJJJ", "JJJJ\x00\x00\x00\x00D\x00\x00EE"},
		{8, "LLL", "JJJJ\x00\x00\x00LLL\x00EE"},
		{11, "MMM", "JJJJ\x00\x00\x00LLLMMM"},
	}},
	{"OverlapLASTSame", PolicyLast, []overlapStep{
		{1, "CCC", "CCC"},
		{15, "HH", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HH"},
		{17, "II", "CCC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "KKK", "KKK\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{1, "LLLL", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00HHII"},
		{15, "P", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00PHII"},
		{15, "QQ", "LLLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00QQII"},
	}},
	{"OverlapLASTAfter", PolicyLast, []overlapStep{
		{1, "AA", "AA"},
		{16, "FFF", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFF"},
		{19, "GG", "AA\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{2, "JJ", "AJJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGG"},
		{20, "O", "AJJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FFFGO"},
		{17, "N", "AJJ\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00FNFGO"},
	}}, // StreamTcpReassembleTest30, 31, 32 (ISN 9, 9, 0; bsd).
	{"StreamTcpReassembleTest30", PolicyBSD, []overlapStep{
		{3, "BBB", "\x00\x00BBB"},
		{1, "AA", "AABBB"},
	}},
	{"StreamTcpReassembleTest31", PolicyBSD, []overlapStep{
		{1, "AA", "AA"},
		{3, "BBB", "AABBB"},
	}},
	{"StreamTcpReassembleTest32", PolicyBSD, []overlapStep{
		{11, "AAAAAAAAAA", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00AAAAAAAAAA"},
		{21, "BBBBBBBBBB", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00AAAAAAAAAABBBBBBBBBB"},
		{41, "CCCCCCCCCC", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00AAAAAAAAAABBBBBBBBBB\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00CCCCCCCCCC"},
		{6, "aaaaaaaaaaaaaaaaaaaa", "\x00\x00\x00\x00\x00aaaaaaaaaaaaaaaaaaaaBBBBB\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00CCCCCCCCCC"},
		{1, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
	}},
}

// view returns the stream [0, n) with holes as NUL bytes.
func view(r *Reassembly, n uint64) []byte {
	out := make([]byte, n)
	for from := uint64(0); from < n; {
		s, e, ok := r.NextBlock(from)
		if !ok || s >= n {
			break
		}
		e = min(e, n)
		copy(out[s:e], r.Bytes(s, e, nil))
		from = e
	}
	return out
}

func TestSuricataOverlapPolicies(t *testing.T) {
	for _, tc := range suricataOverlapTests {
		for _, isn := range []uint32{0, 1, 9, 0xffffffff, 0xffffffff - 10} {
			t.Run(fmt.Sprintf("%s/isn=%d", tc.name, isn), func(t *testing.T) {
				pool := NewPool(1<<20, 16)
				var r Reassembly
				r.Init(Seq(isn+1), 0)
				for i, st := range tc.steps {
					data := []byte(st.seg)
					r.Insert(pool, Seq(isn+st.rseq), data, InsertOptions{Policy: tc.policy})
					if string(data) != st.seg {
						t.Fatalf("step %d: IDS insert changed the caller's data to %q", i, data)
					}
					if got := view(&r, uint64(len(st.expect))); !bytes.Equal(got, []byte(st.expect)) {
						t.Fatalf("step %d (+%d %q): got %q, want %q", i, st.rseq, st.seg, got, st.expect)
					}
				}
				r.Free(pool)
				if pool.InUse() != 0 {
					t.Fatalf("InUse %d after Free", pool.InUse())
				}
			})
		}
	}
}

func TestInlineFirstDataWins(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(100, 0)
	// Policy last would take the new bytes in IDS mode; inline ignores the policy.
	opt := InsertOptions{Policy: PolicyLast, Inline: true}
	if res := r.Insert(pool, 102, []byte("abcd"), opt); !res.Stored || res.Overlap {
		t.Fatalf("first insert: %+v", res)
	}
	pkt := []byte("XXXXXXXX")
	res := r.Insert(pool, 100, pkt, opt)
	if !res.Overlap || !res.Rewritten || !res.OverlapDiff || !res.Stored {
		t.Fatalf("overlapping insert: %+v", res)
	}
	if string(pkt) != "XXabcdXX" {
		t.Fatalf("packet rewritten to %q, want XXabcdXX", pkt)
	}
	if got := string(r.Bytes(0, 8, nil)); got != "XXabcdXX" {
		t.Fatalf("stream %q", got)
	}
	// Same bytes again: overlap, nothing rewritten, nothing new.
	pkt = []byte("Xabc")
	res = r.Insert(pool, 101, pkt, opt)
	if !res.Overlap || res.Rewritten || res.OverlapDiff || res.Stored || string(pkt) != "Xabc" {
		t.Fatalf("identical retransmission: %+v %q", res, pkt)
	}
	r.Free(pool)
}

func TestCheckOverlapDiff(t *testing.T) {
	for _, tc := range []struct {
		check    bool
		data     string
		wantDiff bool
	}{
		{false, "zzzz", false}, // not checked: never reported
		{true, "zzzz", true},
		{true, "bcde", false}, // same bytes
		{true, "bcdz", false}, // 'z' lies past the stored data
		{true, "bzde", true},
	} {
		pool := NewPool(0, 0)
		var r Reassembly
		r.Init(0, 0)
		r.Insert(pool, 0, []byte("abcd"), InsertOptions{})
		res := r.Insert(pool, 1, []byte(tc.data), InsertOptions{Policy: PolicyBSD, CheckOverlapDiff: tc.check})
		if !res.Overlap || res.OverlapDiff != tc.wantDiff || !res.Stored {
			t.Errorf("%+v: %+v", tc, res)
		}
		// bsd: new starts after the stored one, so the stored bytes stay.
		want := "abcd" + tc.data[3:]
		if got := string(r.Bytes(0, 5, nil)); got != want {
			t.Errorf("%+v: stream %q want %q", tc, got, want)
		}
	}
}

func TestDepth(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(1001, 10) // ISN 1000
	if res := r.Insert(pool, 1001, []byte("01234"), InsertOptions{}); !res.Stored || res.DepthReached || res.PastDepth {
		t.Fatalf("within depth: %+v", res)
	}
	if res := r.Insert(pool, 1005, []byte("45678"), InsertOptions{}); !res.Stored || res.DepthReached {
		t.Fatalf("ending at offset 9, below depth 10: %+v", res)
	}
	// Ends past the depth: Suricata 8.0.6 stores none of it (no truncation) and closes.
	res := r.Insert(pool, 1008, []byte("89ABC"), InsertOptions{})
	if !res.DepthReached || !res.PastDepth || res.Stored || !r.DepthReached() {
		t.Fatalf("crossing the depth: %+v", res)
	}
	if r.End() != 9 || r.Contiguous(0) != 9 {
		t.Fatalf("end %d contiguous %d, want 9", r.End(), r.Contiguous(0))
	}
	// Closed: even data within the depth is refused, without a new DepthReached.
	if res := r.Insert(pool, 1009, []byte("9"), InsertOptions{}); res.Stored || res.DepthReached || !res.PastDepth {
		t.Fatalf("after the depth was reached: %+v", res)
	}
	r.Free(pool)

	// The start must lie below ISN+depth (offset depth-1): a one-byte segment at offset 9
	// fits the depth but is refused, without reaching it (CheckDepth's SEQ_LT(seq, isn+depth)).
	r.Init(1001, 10)
	if res := r.Insert(pool, 1010, []byte("9"), InsertOptions{}); res.Stored || res.DepthReached || !res.PastDepth || r.DepthReached() {
		t.Fatalf("byte at depth-1: %+v", res)
	}
	if res := r.Insert(pool, 1009, []byte("89"), InsertOptions{}); !res.Stored {
		t.Fatalf("[8,10): %+v", res)
	}
	// depth 0: unlimited
	r.Free(pool)
	r.Init(1001, 0)
	if res := r.Insert(pool, 1001+1<<20, []byte("x"), InsertOptions{}); !res.Stored {
		t.Fatalf("no depth: %+v", res)
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatal(pool.InUse())
	}
}

func TestGaps(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(0, 0)
	if _, _, ok := r.NextBlock(0); ok || r.Contiguous(0) != 0 || r.End() != 0 {
		t.Fatal("empty store reports data")
	}
	r.Insert(pool, 0, make([]byte, 5), InsertOptions{})
	r.Insert(pool, 10, make([]byte, 5), InsertOptions{})
	r.Insert(pool, 12, make([]byte, 8), InsertOptions{})
	r.Insert(pool, 30, make([]byte, 1), InsertOptions{})
	for _, tc := range []struct {
		from       uint64
		s, e       uint64
		ok         bool
		contiguous uint64
	}{
		{0, 0, 5, true, 5},
		{3, 3, 5, true, 5},
		{5, 10, 20, true, 5},
		{11, 11, 20, true, 20},
		{20, 30, 31, true, 20},
		{31, 0, 0, false, 31},
	} {
		s, e, ok := r.NextBlock(tc.from)
		if s != tc.s || e != tc.e || ok != tc.ok {
			t.Errorf("NextBlock(%d) = %d, %d, %v; want %d, %d, %v", tc.from, s, e, ok, tc.s, tc.e, tc.ok)
		}
		if c := r.Contiguous(tc.from); c != tc.contiguous {
			t.Errorf("Contiguous(%d) = %d, want %d", tc.from, c, tc.contiguous)
		}
	}
	if r.End() != 31 {
		t.Errorf("End %d", r.End())
	}
	// Filling the hole joins the blocks.
	if res := r.Insert(pool, 4, make([]byte, 7), InsertOptions{}); !res.Stored || !res.Overlap {
		t.Errorf("fill: %+v", res)
	}
	if c := r.Contiguous(0); c != 20 {
		t.Errorf("after fill Contiguous(0) = %d", c)
	}
	r.Free(pool)
}

func TestSequenceWrap(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	base := Seq(0xfffffff0)
	r.Init(base, 0)
	// out of order across the wrap: second half first
	r.Insert(pool, 0x00000010, []byte("0123456789abcdef"), InsertOptions{})
	r.Insert(pool, base, []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^"), InsertOptions{})
	if got := string(r.Bytes(0, 48, nil)); got != "ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^0123456789abcdef" {
		t.Fatalf("got %q", got)
	}
	if r.Offset(0x10) != 32 || r.SeqAt(32) != 0x10 || r.Offset(base) != 0 || r.Offset(base-5) != 0 {
		t.Fatalf("Offset(0x10)=%d SeqAt(32)=%#x", r.Offset(0x10), r.SeqAt(32))
	}
	r.Release(pool, 40)
	if r.SeqAt(40) != 0x18 || r.Offset(0x18) != 40 {
		t.Fatal("offsets moved by Release")
	}
	if res := r.Insert(pool, 0xfffffff8, []byte("zz"), InsertOptions{}); !res.BeforeBase {
		t.Fatalf("before base across the wrap: %+v", res)
	}
	r.Free(pool)
}

// TestLongStream: offsets go past 4 GiB (the base moves by Release over a hole).
func TestLongStream(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(7, 0)
	for i := uint64(1); i <= 3; i++ {
		off := i<<32 + 123
		r.Release(pool, off)
		seq := r.SeqAt(off)
		if seq != Seq(7+123) {
			t.Fatalf("SeqAt(%d) = %d", off, seq)
		}
		if res := r.Insert(pool, seq, []byte("data"), InsertOptions{}); !res.Stored {
			t.Fatalf("%+v", res)
		}
		if r.Offset(seq+2) != off+2 || r.End() != off+4 || string(r.Bytes(off, off+4, nil)) != "data" {
			t.Fatalf("offset %d: Offset %d End %d", off, r.Offset(seq+2), r.End())
		}
	}
	r.Free(pool)
}

func TestSparsePages(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(0, 0)
	r.Insert(pool, 0, []byte("a"), InsertOptions{})
	r.Insert(pool, 1<<30, []byte("b"), InsertOptions{})
	r.Insert(pool, 1<<20, []byte("c"), InsertOptions{})
	if want := 3*recordCost + 3*pageCost; pool.InUse() != want {
		t.Fatalf("InUse %d, want %d (3 records, 3 pages)", pool.InUse(), want)
	}
	if string(r.Bytes(1<<20, 1<<20+1, nil)) != "c" || string(r.Bytes(1<<30, 1<<30+1, nil)) != "b" {
		t.Fatal("bytes")
	}
	// A segment across a page boundary takes two pages; Bytes copies into scratch.
	r.Insert(pool, PageSize*5-2, []byte("wxyz"), InsertOptions{})
	scratch := make([]byte, 0, 16)
	got := r.Bytes(PageSize*5-2, PageSize*5+2, scratch)
	if string(got) != "wxyz" || &got[0] != &scratch[:1][0] {
		t.Fatalf("across pages: %q", got)
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatal(pool.InUse())
	}
}

func TestMemcap(t *testing.T) {
	memcap := 3*recordCost + pageCost
	pool := NewPool(memcap, 100000) // prealloc capped at the memcap, not charged
	if pool.InUse() != 0 || len(pool.freeRecs) != int(memcap/recordCost) {
		t.Fatalf("prealloc: InUse %d, %d free records", pool.InUse(), len(pool.freeRecs))
	}
	var r Reassembly
	r.Init(0, 0)
	if res := r.Insert(pool, 0, []byte("abc"), InsertOptions{}); !res.Stored {
		t.Fatalf("%+v", res)
	}
	before := pool.InUse()
	// A second page does not fit: nothing stored, the record given back.
	if res := r.Insert(pool, 2*PageSize, []byte("x"), InsertOptions{}); !res.Memcap || res.Stored || res.NoSegment {
		t.Fatalf("page over memcap: %+v", res)
	}
	// Nor a segment crossing into the next page: all or nothing.
	if res := r.Insert(pool, PageSize-1, []byte("yz"), InsertOptions{}); !res.Memcap || res.Stored {
		t.Fatalf("page over memcap: %+v", res)
	}
	if pool.InUse() != before || r.Segments() != 1 || r.End() != 3 {
		t.Fatalf("after memcap failure: InUse %d (was %d), %d segments, End %d", pool.InUse(), before, r.Segments(), r.End())
	}
	// Same page: a record is enough.
	for i := Seq(0); i < 2; i++ {
		if res := r.Insert(pool, 10+i*10, []byte("d"), InsertOptions{}); !res.Stored {
			t.Fatalf("%+v", res)
		}
	}
	if res := r.Insert(pool, 100, []byte("e"), InsertOptions{}); !res.NoSegment || res.Stored {
		t.Fatalf("record over memcap: %+v", res)
	}
	// As in Suricata the record is taken before the duplicate is found.
	if res := r.Insert(pool, 0, []byte("abc"), InsertOptions{}); !res.NoSegment {
		t.Fatalf("duplicate with no record left: %+v", res)
	}
	if pool.InUse() != memcap {
		t.Fatalf("InUse %d, want %d", pool.InUse(), memcap)
	}
	r.Release(pool, 11)
	if pool.InUse() != recordCost+pageCost || r.Segments() != 1 {
		t.Fatalf("after release: InUse %d, %d segments", pool.InUse(), r.Segments())
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatalf("InUse %d after Free", pool.InUse())
	}
}

func TestRelease(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(5000, 0)
	seg := func(c byte) []byte { return bytes.Repeat([]byte{c}, 1460) }
	for i, c := range "abc" {
		r.Insert(pool, 5000+Seq(i*1460), seg(byte(c)), InsertOptions{})
	}
	r.Release(pool, 2000)
	if r.Segments() != 2 || r.Base() != 2000 {
		t.Fatalf("%d segments, base %d", r.Segments(), r.Base())
	}
	if _, _, ok := r.NextBlock(0); !ok || r.Contiguous(0) != 0 || r.Contiguous(2000) != 4380 {
		t.Fatal("released bytes still present")
	}
	if s, _, _ := r.NextBlock(0); s != 2000 {
		t.Fatalf("NextBlock(0) starts at %d, want the base", s)
	}
	if r.Bytes(0, 100, nil) != nil || r.Bytes(1990, 2010, nil) != nil {
		t.Fatal("Bytes reads released data")
	}
	if got := r.Bytes(2000, 2010, nil); string(got) != "bbbbbbbbbb" {
		t.Fatalf("Bytes at the base: %q", got)
	}
	if res := r.Insert(pool, 5000, make([]byte, 1000), InsertOptions{}); !res.BeforeBase || res.Stored {
		t.Fatalf("before base: %+v", res)
	}
	// A segment partly before the base is kept from the base on (InsertSegmentDataCustom).
	r.Release(pool, 4380)
	if res := r.Insert(pool, 5000+4000, []byte(strings.Repeat("z", 500)), InsertOptions{}); !res.Stored || res.Overlap {
		t.Fatalf("partly before base: %+v", res)
	}
	if got := string(r.Bytes(4380, 4500, nil)); got != strings.Repeat("z", 120) {
		t.Fatalf("got %q", got)
	}
	if r.Contiguous(4380) != 4500 {
		t.Fatal(r.Contiguous(4380))
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatal(pool.InUse())
	}
}

// TestBackwardWalkStops: Suricata checks the stored neighbours only (CheckOverlap) and its
// backward walk stops at the first segment that ends before the new one starts
// (DoHandleDataCheckBackwards), so a long segment further back is not consulted: with
// [0,100) 'A' and [10,20) 'B' stored, bsd writes a new [50,60) over the A bytes without an
// overlap, where without the short segment the A bytes stay.
func TestBackwardWalkStops(t *testing.T) {
	for _, withShort := range []bool{false, true} {
		pool := NewPool(0, 0)
		var r Reassembly
		r.Init(0, 0)
		r.Insert(pool, 0, bytes.Repeat([]byte("A"), 100), InsertOptions{})
		if withShort {
			r.Insert(pool, 10, bytes.Repeat([]byte("B"), 10), InsertOptions{})
		}
		res := r.Insert(pool, 50, bytes.Repeat([]byte("C"), 10), InsertOptions{})
		got := string(r.Bytes(50, 60, nil))
		if withShort && (res.Overlap || got != "CCCCCCCCCC") {
			t.Errorf("with the short segment: %+v %q", res, got)
		}
		if !withShort && (!res.Overlap || got != "AAAAAAAAAA") {
			t.Errorf("without the short segment: %+v %q", res, got)
		}
		r.Free(pool)
	}
	// With a neighbour that does touch it the segment overlaps, yet the walk back still stops
	// at [10,20): the A bytes are not consulted, the new bytes win over [55,58) (starts
	// before) and over the A bytes.
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(0, 0)
	r.Insert(pool, 0, bytes.Repeat([]byte("A"), 100), InsertOptions{})
	r.Insert(pool, 10, bytes.Repeat([]byte("B"), 10), InsertOptions{})
	r.Insert(pool, 55, []byte("DDD"), InsertOptions{})
	res := r.Insert(pool, 50, bytes.Repeat([]byte("C"), 10), InsertOptions{CheckOverlapDiff: true})
	if got := string(r.Bytes(45, 65, nil)); !res.Overlap || !res.OverlapDiff || got != "AAAAACCCCCCCCCCAAAAA" {
		t.Errorf("walk past the stop: %+v %q", res, got)
	}
	r.Free(pool)
}

func TestInsertNoAllocs(t *testing.T) {
	pool := NewPool(1<<24, 64)
	var r Reassembly
	r.Init(1, 0)
	data := make([]byte, 1460)
	seq := Seq(1)
	step := func() {
		r.Insert(pool, seq, data, InsertOptions{})
		r.Insert(pool, seq, data, InsertOptions{CheckOverlapDiff: true}) // retransmission
		seq += 1460
		end := r.End()
		_ = r.Bytes(r.Base(), r.Contiguous(r.Base()), pool.scratch[:0])
		r.Release(pool, end-100)
	}
	for i := 0; i < 100; i++ {
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Fatalf("%v allocs per insert+release", a)
	}
	r.Free(pool)
}

func BenchmarkInsertInOrder(b *testing.B) {
	pool := NewPool(1<<26, 2048)
	var r Reassembly
	r.Init(1, 0)
	data := make([]byte, 1460)
	seq := Seq(1)
	b.ReportAllocs()
	b.SetBytes(1460)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Insert(pool, seq, data, InsertOptions{})
		seq += 1460
		if i%8 == 7 {
			r.Release(pool, r.End())
		}
	}
	r.Free(pool)
}

// TestMaxRegions: with Suricata's default of 8 regions (the main one at the base included),
// a ninth region more than RegionGap from every other is refused with InsertLimit and stores
// nothing; once a segment within the gap of two regions joins them, it is accepted.
func TestMaxRegions(t *testing.T) {
	const far = RegionGap + 40000 // regions k*far apart never join
	seg := []byte("0123456789")
	steps := []struct {
		name  string
		off   int64
		limit bool
		segs  int
	}{
		{"main region", 0, false, 1},
		{"region 2", 1 * far, false, 2},
		{"region 3", 2 * far, false, 3},
		{"region 4", 3 * far, false, 4},
		{"region 5", 4 * far, false, 5},
		{"region 6", 5 * far, false, 6},
		{"region 7", 6 * far, false, 7},
		{"region 8", 7 * far, false, 8},
		{"region 9 refused", 8 * far, true, 8},
		{"within the gap of region 8 joins it", 7*far + 100, false, 9},
		{"still refused", 9 * far, true, 9},
		{"hole between regions 1 and 2 joins them", far / 2, false, 10},
		{"region 9 now fits", 8 * far, false, 11},
		{"a tenth does not", 10 * far, true, 11},
	}
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(1000, 0)
	for _, st := range steps {
		res := r.Insert(pool, r.SeqAt(uint64(st.off)), bytes.Clone(seg), InsertOptions{})
		if res.InsertLimit != st.limit || res.Stored == st.limit || r.Segments() != st.segs {
			t.Fatalf("%s: %+v, %d segments, want limit %v and %d segments", st.name, res, r.Segments(), st.limit, st.segs)
		}
		if s, e, ok := r.NextBlock(uint64(st.off)); st.limit == (ok && s == uint64(st.off) && e == uint64(st.off)+10) {
			t.Fatalf("%s: NextBlock %d %d %v", st.name, s, e, ok)
		}
	}
	if len(r.regs) != 8 {
		t.Fatalf("%d regions: %v", len(r.regs), r.regs)
	}
	// Releasing past the first two regions leaves room for one more: the main region stays,
	// empty, at the new base.
	r.Release(pool, uint64(2*far+10))
	if res := r.Insert(pool, r.SeqAt(uint64(10*far)), bytes.Clone(seg), InsertOptions{}); !res.Stored {
		t.Fatalf("after release: %+v (%v)", res, r.regs)
	}
	if res := r.Insert(pool, r.SeqAt(uint64(12*far)), bytes.Clone(seg), InsertOptions{}); !res.InsertLimit {
		t.Fatalf("after release, the limit again: %+v (%v)", res, r.regs)
	}
	// No limit, and a limit of one (everything within the gap of the base).
	r.Free(pool)
	r.Init(0, 0)
	r.SetMaxRegions(-1)
	for k := int64(0); k < 20; k++ {
		if res := r.Insert(pool, r.SeqAt(uint64(k*far)), bytes.Clone(seg), InsertOptions{}); !res.Stored {
			t.Fatalf("no limit, region %d: %+v", k, res)
		}
	}
	r.Free(pool)
	r.Init(0, 0)
	r.SetMaxRegions(1)
	if res := r.Insert(pool, r.SeqAt(RegionGap), bytes.Clone(seg), InsertOptions{}); !res.Stored {
		t.Fatalf("limit 1, within the gap of the base: %+v", res)
	}
	if res := r.Insert(pool, r.SeqAt(3*RegionGap), bytes.Clone(seg), InsertOptions{}); !res.InsertLimit {
		t.Fatalf("limit 1, far: %+v", res)
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatalf("InUse %d after Free", pool.InUse())
	}
}

// TestMaxSegments: the records a direction holds stay within SetMaxSegments (default
// DefaultMaxSegments); past it a segment that needs a record is NoSegment and stores
// nothing, an exact retransmission is still handled, and a release makes room again.
func TestMaxSegments(t *testing.T) {
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(0, 0)
	r.SetMaxSegments(100)
	for i := 0; i < 150; i++ {
		res := r.Insert(pool, Seq(2*i), []byte{byte(i)}, InsertOptions{})
		if (i >= 100) != res.NoSegment || (i < 100) != res.Stored {
			t.Fatalf("segment %d: %+v", i, res)
		}
	}
	if r.Segments() != 100 {
		t.Fatalf("%d segments", r.Segments())
	}
	if res := r.Insert(pool, 10, []byte{5}, InsertOptions{CheckOverlapDiff: true}); res.NoSegment || !res.Overlap || res.Stored {
		t.Fatalf("retransmission at the cap: %+v", res)
	}
	if res := r.Insert(pool, 10, []byte{5, 0}, InsertOptions{}); !res.NoSegment {
		t.Fatalf("a longer one needs a record: %+v", res)
	}
	r.Release(pool, 20) // frees 10 records
	for i := 0; i < 12; i++ {
		res := r.Insert(pool, Seq(1000+2*i), []byte{1}, InsertOptions{})
		if (i >= 10) != res.NoSegment {
			t.Fatalf("after release, %d: %+v", i, res)
		}
	}
	r.Free(pool)

	r.Init(0, 0)
	r.SetMaxSegments(0)
	for i := 0; i < DefaultMaxSegments+100; i++ {
		r.Insert(pool, Seq(2*i), []byte{1}, InsertOptions{})
	}
	if r.Segments() != DefaultMaxSegments {
		t.Fatalf("%d segments, default cap %d", r.Segments(), DefaultMaxSegments)
	}
	r.Free(pool)
	if pool.InUse() != 0 {
		t.Fatalf("InUse %d after Free", pool.InUse())
	}
}

// BenchmarkInsertAdversarial: a peer that never lets the store drain. The store is full
// (n one-byte segments with one-byte holes between them, MaxSegments n), and each operation
// is one insert and the consumer's Contiguous from the base: in turn a one-byte segment into
// the holes in descending order (refused at the cap), and a retransmission of the oldest
// byte. The time per operation should not grow with n. In the "under-long" case the
// one-byte segments lie under one long segment at the base.
func BenchmarkInsertAdversarial(b *testing.B) {
	b.Run("holes", func(b *testing.B) { benchAdversarial(b, false) })
	b.Run("under-long", func(b *testing.B) { benchAdversarial(b, true) })
}

func benchAdversarial(b *testing.B, underLong bool) {
	for _, n := range []int{256, 1024, 4096, 16384} {
		b.Run(fmt.Sprintf("segs=%d", n), func(b *testing.B) {
			pool := NewPool(0, n+1)
			var r Reassembly
			r.Init(0, 0)
			r.SetMaxSegments(n)
			one := []byte{'x'}
			if underLong {
				r.Insert(pool, 0, make([]byte, 2*n+1), InsertOptions{})
			}
			for i := r.Segments(); i < n; i++ { // descending, at the odd offsets
				r.Insert(pool, Seq(2*(n-i)-1), one, InsertOptions{})
			}
			if r.Segments() != n {
				b.Fatalf("%d segments", r.Segments())
			}
			hole := 2*n - 2
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i&1 == 0 {
					r.Insert(pool, Seq(hole), one, InsertOptions{})
					if hole -= 2; hole < 0 {
						hole = 2*n - 2
					}
				} else {
					r.Insert(pool, 1, one, InsertOptions{CheckOverlapDiff: true})
				}
				_ = r.Contiguous(r.Base())
			}
			b.StopTimer()
			r.Free(pool)
		})
	}
}

// BenchmarkInsertFarJumps: the case the remembered places do not cover, segments alternating
// between the quarter and three quarters of a full store, half the records apart: placed from
// the checkpoints, the time per insert should not grow with the records held.
func BenchmarkInsertFarJumps(b *testing.B) {
	for _, n := range []int{256, 1024, 4096, 16384} {
		b.Run(fmt.Sprintf("segs=%d", n), func(b *testing.B) {
			pool := NewPool(0, n+1)
			var r Reassembly
			r.Init(0, 0)
			r.SetMaxSegments(n)
			one := []byte{'x'}
			for i := 0; i < n; i++ {
				r.Insert(pool, Seq(2*i), one, InsertOptions{})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				at := n / 2 // a retransmission at a quarter, then at three quarters
				if i&1 != 0 {
					at = 3 * n / 2
				}
				r.Insert(pool, Seq(at), one, InsertOptions{})
			}
			b.StopTimer()
			r.Free(pool)
		})
	}
}

// checkList checks r's list against its checkpoints: ordered by (start, n), the checkpoints
// in list order and flagged, findPrev agreeing with a walk from the tail.
func checkList(t *testing.T, r *Reassembly, pool *Pool, rng *rand.Rand) {
	t.Helper()
	n, k := 0, 0
	var prev int32
	for i := r.head; i != 0; i = pool.recs[i].next {
		s := &pool.recs[i]
		if s.prev != prev {
			t.Fatalf("record %d: prev %d, want %d", i, s.prev, prev)
		}
		if prev != 0 && !(pool.recs[prev].start < s.start || (pool.recs[prev].start == s.start && pool.recs[prev].n < s.n)) {
			t.Fatalf("records %d, %d out of order", prev, i)
		}
		if s.ck {
			if k >= len(r.ck) || r.ck[k].rec != i {
				t.Fatalf("checkpoint %d: record %d, list has %d", k, r.ck[min(k, len(r.ck)-1)].rec, i)
			}
			k++
		}
		prev = i
		n++
	}
	if prev != r.tail || n != r.Segments() || k != len(r.ck) {
		t.Fatalf("tail %d/%d, %d/%d records, %d/%d checkpoints", prev, r.tail, n, r.Segments(), k, len(r.ck))
	}
	// Each checkpoint's furthest end before it, exact after the base.
	far, k := r.baseOff, 0
	for i := r.head; i != 0; i = pool.recs[i].next {
		if pool.recs[i].ck {
			if got := max(r.ck[k].before, r.baseOff); got != far {
				t.Fatalf("checkpoint %d (record %d): furthest end before %d, want %d", k, i, got, far)
			}
			k++
		}
		far = max(far, pool.recs[i].end())
	}
	// covered against the records, for some record and ranges from its start.
	if r.nbFirst == 0 && n > 0 {
		rec := r.head
		for j := rng.Intn(n); j > 0; j-- {
			rec = pool.recs[rec].next
		}
		s := pool.recs[rec]
		for j := 0; j < 4; j++ {
			lo := max(s.start, r.baseOff) + int64(rng.Intn(int(s.n)))
			hi := lo + 1 + int64(rng.Intn(3000))
			pos := lo
			for more := true; more; {
				more = false
				for i := r.head; i != 0; i = pool.recs[i].next {
					if i != rec && pool.recs[i].start <= pos && pool.recs[i].end() > pos {
						pos, more = pool.recs[i].end(), true
					}
				}
			}
			if got := r.covered(pool, rec, lo, hi); got != (pos >= hi) {
				t.Fatalf("covered(%d, [%d, %d)) = %v, covered to %d", rec, lo, hi, got, pos)
			}
		}
	}
	for j := 0; j < 8; j++ {
		start, ln := int64(rng.Intn(70000)), uint32(1+rng.Intn(4))
		want := r.tail
		for want != 0 && !pool.atOrBefore(want, start, ln) {
			want = pool.recs[want].prev
		}
		if got := r.findPrev(pool, start, ln); got != want {
			t.Fatalf("findPrev(%d, %d) = %d, want %d", start, ln, got, want)
		}
	}
}

// TestCheckpoints: random inserts (far jumps, descending runs, retransmissions) and releases
// over a store of thousands of records keep the list, its checkpoints and findPrev right.
func TestCheckpoints(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pool := NewPool(0, 0)
	var r Reassembly
	r.Init(0, 0)
	r.SetMaxSegments(4000)
	data := bytes.Repeat([]byte("x"), 3000)
	base := 0
	for op := 0; op < 30000; op++ {
		switch x := rng.Intn(100); {
		case x < 1: // a long segment, which one-byte ones then lie under
			r.Insert(pool, Seq(base+rng.Intn(60000)), data[:100+rng.Intn(2900)], InsertOptions{})
		case x < 2:
			base += rng.Intn(2000)
			r.Release(pool, uint64(base))
		case x < 40: // far jump
			r.Insert(pool, Seq(base+rng.Intn(60000)), data[:1+rng.Intn(4)], InsertOptions{})
		case x < 70: // descending run
			at := base + rng.Intn(60000)
			for i := 0; i < 20; i++ {
				r.Insert(pool, Seq(at-3*i), data[:1], InsertOptions{})
			}
		default: // retransmission of something near the last insert
			if f := r.finger; f != 0 {
				s := pool.recs[f]
				r.Insert(pool, r.SeqAt(uint64(max(s.start, 0))), data[:s.n], InsertOptions{})
			}
		}
		if op%97 == 0 {
			checkList(t, &r, pool, rng)
		}
	}
	checkList(t, &r, pool, rng)
	if len(r.ck) == 0 {
		t.Fatal("no checkpoints were made")
	}
	r.Free(pool)
	if pool.InUse() != 0 || len(r.ck) != 0 {
		t.Fatalf("InUse %d, %d checkpoints after Free", pool.InUse(), len(r.ck))
	}
}

// BenchmarkInsertUnderLong: one-byte segments lying under one long stored segment while the
// consumer is stalled at a hole before it, so that its remembered block does not cover them.
// The store holds n one-byte segments at the odd offsets under the long one; each operation
// is a one-byte segment into an even offset under it, descending (placed next to the last
// insert), and the consumer's Contiguous from the base. Its neighbours do not touch it, so
// whether it adds bytes is found from the long segment far back; the time per insert should
// not grow with n. Every n/4 inserts the store is built again, untimed.
func BenchmarkInsertUnderLong(b *testing.B) {
	for _, n := range []int{256, 1024, 4096, 16384} {
		b.Run(fmt.Sprintf("segs=%d", n), func(b *testing.B) {
			pool := NewPool(0, n+n/4+3)
			var r Reassembly
			one := []byte{'x'}
			long := make([]byte, 2*n+2)
			build := func() {
				r.Free(pool)
				r.Init(0, 0)
				r.SetMaxSegments(-1)
				r.Insert(pool, 0, one, InsertOptions{}) // the consumer's block, before a hole at 1
				for i := 0; i < n; i++ {
					r.Insert(pool, Seq(3+2*i), one, InsertOptions{})
				}
				r.Insert(pool, 2, long, InsertOptions{}) // [2, 2n+4)
				_ = r.Contiguous(r.Base())
			}
			build()
			hole, left := 2*n+2, n/4
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if left == 0 {
					b.StopTimer()
					build()
					hole, left = 2*n+2, n/4
					b.StartTimer()
				}
				if res := r.Insert(pool, Seq(hole), one, InsertOptions{}); res.Stored || res.Overlap {
					b.Fatalf("insert at %d: %+v", hole, res)
				}
				hole -= 2
				left--
				_ = r.Contiguous(r.Base())
			}
			b.StopTimer()
			r.Free(pool)
		})
	}
}
