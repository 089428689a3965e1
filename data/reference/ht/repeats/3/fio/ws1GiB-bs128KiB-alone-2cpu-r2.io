rchar: 93803097084
wchar: 18968
syscr: 715880
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
