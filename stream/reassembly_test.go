package stream

import (
	"bytes"
	"fmt"
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
