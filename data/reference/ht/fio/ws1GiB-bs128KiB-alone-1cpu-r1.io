rchar: 44552924147
wchar: 13658
syscr: 340132
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
