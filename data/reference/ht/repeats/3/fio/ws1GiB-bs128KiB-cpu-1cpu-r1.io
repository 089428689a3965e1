rchar: 20216392638
wchar: 13658
syscr: 154455
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
