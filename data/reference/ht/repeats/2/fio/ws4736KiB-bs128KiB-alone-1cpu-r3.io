rchar: 93051530239
wchar: 13669
syscr: 710147
syscw: 5
read_bytes: 32768
write_bytes: 8192
cancelled_write_bytes: 0
