//go:build amd64

package host

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// detect reads the features with CPUID and XGETBV.
func detect() Features {
	var f Features
	maxID, vb, vc, vd := cpuid(0, 0)
	f.AMD = vb == 0x68747541 && vd == 0x69746e65 && vc == 0x444d4163 // "AuthenticAMD"
	if maxID < 7 {
		return f
	}
	if maxExt, _, _, _ := cpuid(0x80000000, 0); maxExt >= 0x80000001 {
		_, _, ce, _ := cpuid(0x80000001, 0)
		f.PrefW = ce&(1<<8) != 0 // PRFCHW
	}
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 || c1&(1<<28) == 0 { // OSXSAVE, AVX
		return f
	}
	x, _ := xgetbv()
	_, b7, c7, _ := cpuid(7, 0)
	f.ERMS = b7&(1<<9) != 0
	if x&6 != 6 || b7&(1<<5) == 0 { // SSE and AVX state, AVX2
		return f
	}
	f.AVX2 = true
	f.BMI2 = b7&(1<<8) != 0
	const avx512 = 1<<16 | 1<<30 | 1<<31 // AVX512F, BW, VL
	if x&0xe6 == 0xe6 && b7&avx512 == avx512 {
		f.AVX512 = true
		f.VBMI = c7&(1<<1) != 0
	}
	return f
}
