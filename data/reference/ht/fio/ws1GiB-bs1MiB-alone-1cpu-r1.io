rchar: 36638403562
wchar: 13658
syscr: 35162
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
