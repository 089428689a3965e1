rchar: 25380367300
wchar: 13658
syscr: 193855
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
