rchar: 37184711632
wchar: 13658
syscr: 283915
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
