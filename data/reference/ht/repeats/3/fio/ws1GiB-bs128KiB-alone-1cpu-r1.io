rchar: 51113995182
wchar: 13658
syscr: 390188
syscw: 5
read_bytes: 225280
write_bytes: 8192
cancelled_write_bytes: 0
