rchar: 81514441762
wchar: 18969
syscr: 622127
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
